function() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && /^(IFRAME|FRAME|OBJECT|EMBED)$/.test(a.tagName) ? a : null;
}
