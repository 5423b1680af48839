// A figure opens full size in a tab of its own when clicked or tapped: on a phone a drawing
// shrunk to the column's width is read there, zoomed as far as the reader likes.
//
// On a narrow screen a figure also keeps the size it has on a desktop, where no text in it
// is under 9 px (tests/test_browser.py): it is shown at its natural width, at most the
// desktop column's 684 px, and scrolls sideways in its own box (reflib.css) instead of
// shrinking to a phone's 360 px column, where its labels would be 4 to 6 px.
const DESKTOP_COLUMN_PX = 684;
const NARROW = window.matchMedia('(max-width: 600px)');

function keepDesktopSize(img) {
  const fit = () => {
    if (NARROW.matches && img.naturalWidth) {
      img.style.width = Math.min(img.naturalWidth, DESKTOP_COLUMN_PX) + 'px';
      img.style.maxWidth = 'none';
    } else {
      img.style.width = '';
      img.style.maxWidth = '';
    }
  };
  if (img.complete) fit(); else img.addEventListener('load', fit);
  NARROW.addEventListener('change', fit);
}

document.addEventListener('DOMContentLoaded', () => {
  for (const img of document.querySelectorAll('article.bd-article figure img, article.bd-article .cell_output img')) {
    if (!img.closest('a')) {
      const link = document.createElement('a');
      link.href = img.getAttribute('src');
      link.target = '_blank';
      link.rel = 'noopener';
      link.title = 'Open the figure full size';
      link.className = 'figure-full-size';
      img.parentNode.insertBefore(link, img);
      link.appendChild(img);
    }
    keepDesktopSize(img);
  }
});
