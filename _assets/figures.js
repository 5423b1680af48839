// A figure opens full size in a tab of its own when clicked or tapped: on a phone a drawing
// shrunk to the column's width is read there, zoomed as far as the reader likes.
document.addEventListener('DOMContentLoaded', () => {
  for (const img of document.querySelectorAll('article.bd-article figure img, article.bd-article .cell_output img')) {
    if (img.closest('a')) continue;
    const link = document.createElement('a');
    link.href = img.getAttribute('src');
    link.target = '_blank';
    link.rel = 'noopener';
    link.title = 'Open the figure full size';
    link.className = 'figure-full-size';
    img.parentNode.insertBefore(link, img);
    link.appendChild(img);
  }
});
