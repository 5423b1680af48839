"""The book's SVG figures in the PDF (`make pdf`).

Most figures are graphviz drawings that the chapters store as SVG.  LaTeX cannot include
SVG, and myst-nb does not even offer an SVG output to the LaTeX builder, so without this
extension the PDF silently loses every one of them.  Here myst-nb is told that SVG is
acceptable for LaTeX, and Sphinx is given an image converter that turns each SVG into a
PDF with cairosvg (pip; it draws with the cairo library graphviz already brings).  The
HTML build never converts anything: Sphinx asks a converter only for a builder that
cannot show the image as it is.  cairosvg is imported only then, so the HTML book does
not need it (pyproject.toml's `pdf` extra installs it for `make pdf`).
"""
from sphinx.transforms.post_transforms.images import ImageConverter

# after PDF, PNG and JPEG, which LaTeX takes as they are; before LaTeX or plain text
_SVG_PRIORITY = 35


class _CairoSvgToPdf(ImageConverter):
    conversion_rules = [('image/svg+xml', 'application/pdf')]

    def is_available(self):
        try:
            import cairosvg  # noqa: F401  (only `make pdf` installs it: see the module docstring)
        except ImportError:
            return False
        return True

    def convert(self, _from, _to):
        import cairosvg  # (as above)
        cairosvg.svg2pdf(url=str(_from), write_to=str(_to))
        return True


def _offer_svg_to_latex(app, config):
    overrides = list(config.nb_mime_priority_overrides or [])
    overrides.append(('latex', 'image/svg+xml', _SVG_PRIORITY))
    config.nb_mime_priority_overrides = overrides


def setup(app):
    app.add_post_transform(_CairoSvgToPdf)
    app.connect('config-inited', _offer_svg_to_latex)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
