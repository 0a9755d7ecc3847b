function(token) {
  const c = globalThis.lyradSendCheck;
  if (!c || c.token !== token) return false;
  c.win.removeEventListener('formdata', c.listener);
  globalThis.lyradSendCheck = null;
  return true;
}
