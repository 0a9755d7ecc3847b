function(x, y) {
  // @include helpers.js covered.js
  if (!this.isConnected) return {gone: true};
  const hit = coveredBy(this, x, y);
  return {covered: hit ? coverName(hit) : '', coverPage: !!hit && isPage(hit), coverFrame: hit ? frameOf(hit) : ''};
}
