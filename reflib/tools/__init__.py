"""Command-line tools, run as ``python -m reflib.tools.<name>``.

im2rec   image folder -> ``.lst`` image list -> ``.rec``/``.idx`` RecordIO files (MXNet's tools/im2rec.py)
"""
