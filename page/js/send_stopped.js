function() { return String(globalThis.lyradSendStopped || ''); }
