function() {
  this.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
}
