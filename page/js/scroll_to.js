function(where) {
  const se = document.scrollingElement || document.documentElement;
  scrollTo({left: scrollX, top: where === 'top' ? 0 : se.scrollHeight, behavior: 'instant'});
}
