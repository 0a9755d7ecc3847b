// gate, when given, names the drain for the reads queued behind it
// (afterdrain.go): they wait in the page for its task, not for its answer.
// timer, when given, names the wait focus_text.js armed: when the typed
// text's input event started it, that is the drain's task; else (no input
// event fired, or not yet) the wait starts now.
function(ms, gate, timer) {
  const t = globalThis.__lyradTyped;
  if (t) {
    removeEventListener('input', t.on);
    delete globalThis.__lyradTyped;
  }
  const started = t && timer && t.token === timer ? t.p : null;
  const p = window.closed ? Promise.resolve(true) :
    (started || new Promise(resolve => setTimeout(resolve, ms || 0))).then(() => window.closed);
  if (gate) globalThis.__lyradGate = {token: gate, p};
  return p;
}
