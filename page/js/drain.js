function(ms) {
  if (window.closed) return true;
  return new Promise(resolve => setTimeout(() => resolve(window.closed), ms || 0));
}
