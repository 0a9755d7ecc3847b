function(hx, hy) {
  // @include helpers.js covered.js
  return frameHit(this, hx, hy);
}
