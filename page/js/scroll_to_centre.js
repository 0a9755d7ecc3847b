// Brings `this` to the middle of the view, both ways (highlight_element).
function() { this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); }
