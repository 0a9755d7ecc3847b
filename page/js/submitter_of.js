function() {
  // @include form_helpers.js
  return {text: shownText(this), name: cut(this.getAttribute('name'), 80), value: cut(this.getAttribute('value'), 80)};
}
