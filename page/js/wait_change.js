function(ms) {
  return new Promise(resolve => {
    const o = new MutationObserver(() => { o.disconnect(); resolve(true); });
    o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { o.disconnect(); resolve(false); }, ms);
  });
}
