function() {
  if (window.closed) return true;
  return new Promise(resolve => setTimeout(() => resolve(window.closed), 0));
}
