// gate, when given, names the drain for the reads queued behind it
// (afterdrain.go): they wait in the page for its task, not for its answer.
function(ms, gate) {
  const p = window.closed ? Promise.resolve(true) : new Promise(resolve => setTimeout(() => resolve(window.closed), ms || 0));
  if (gate) globalThis.__lyradGate = {token: gate, p};
  return p;
}
