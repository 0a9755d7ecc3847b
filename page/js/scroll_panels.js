function() {
  // @include helpers.js
  const up = n => n.assignedSlot || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement);
  const panels = [];
  for (let n = up(this); n && n !== document.documentElement && n !== document.body; n = up(n)) {
    if (n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1) {
      const cs = getComputedStyle(n);
      if (/(auto|scroll|hidden|overlay)/.test(cs.overflowY + ' ' + cs.overflowX)) panels.push({n, top: n.scrollTop, left: n.scrollLeft});
    }
  }
  this.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
  const moved = panels.find(p => p.n.scrollTop !== p.top || p.n.scrollLeft !== p.left);
  if (!moved) return null;
  const n = moved.n;
  return {panel: describe(n), y: Math.round(n.scrollTop), from: Math.round(moved.top), height: n.scrollHeight, view: n.clientHeight,
    atBottom: Math.ceil(n.scrollTop + n.clientHeight) >= n.scrollHeight - 1};
}
