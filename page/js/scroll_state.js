function(ms, wantMove, fromY) {
  const se = document.scrollingElement || document.documentElement;
  const state = () => ({y: Math.round(scrollY), height: se.scrollHeight, view: innerHeight,
    atBottom: Math.ceil(scrollY + innerHeight) >= se.scrollHeight - 1});
  // A frame, or 50 ms where frames are throttled (a tab in the background).
  const frame = () => new Promise(r => { requestAnimationFrame(r); setTimeout(r, 50); });
  return (async () => {
    const start = performance.now();
    let last = scrollY, still = 0;
    while (still < 3 && performance.now() - start < ms) {
      await frame();
      if (wantMove && scrollY === fromY && performance.now() - start < 300) continue;
      if (scrollY === last) still++; else { still = 0; last = scrollY; }
    }
    return state();
  })();
}
