// Where the content box of the frame element `this` sits in its
// document's viewport (its border box, less its borders).
function() {
  const r = this.getBoundingClientRect();
  return {X: r.x + this.clientLeft, Y: r.y + this.clientTop};
}
