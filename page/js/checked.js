// Whether the checkbox or radio `this` is checked.
function() { return !!this.checked; }
