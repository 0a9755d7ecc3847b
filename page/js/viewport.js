// The viewport's size in CSS pixels.
function() { return {w: innerWidth, h: innerHeight}; }
