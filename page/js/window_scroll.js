// How far the window is scrolled.
function() { return {X: scrollX, Y: scrollY}; }
