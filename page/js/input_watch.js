// Runs at the start of every document, in lyrad's world: tells lyrad, by
// the binding __lyradInput (hands.go's inputBindingName), of each trusted
// press. It listens capturing on the window, where an event's dispatch
// begins, passive, changing nothing the page sees.
(() => {
  if (globalThis.__lyradWatching) return;
  globalThis.__lyradWatching = true;
  const tell = e => {
    const b = globalThis.__lyradInput;
    if (e.isTrusted && typeof b === 'function') b(e.type);
  };
  for (const t of ['pointerdown', 'mousedown', 'keydown', 'touchstart']) {
    addEventListener(t, tell, {capture: true, passive: true});
  }
})()
