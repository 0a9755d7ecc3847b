// Scrolls the window by (dx, dy) at once.
function(dx, dy) { scrollBy({left: dx, top: dy, behavior: 'instant'}); }
