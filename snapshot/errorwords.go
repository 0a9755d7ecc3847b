package snapshot

// JSErrorWords is how a page's markup says an element is an error message
// by its classes, the one rule the tree's [error] mark (JSTree) and a
// form's refusal (package page, after a send) both go by: a class word
// (or a part of one split at - and _) names an error (.error,
// .field-error, .invalid-feedback, .errorlist), none says success or
// information (.alert-success, .notice-info), and none negates it
// (.error-free, .no-errors). Words in the text never count.
//
// It defines classTokens(el), classSays(el, re), ERROR_WORD, OK_WORD and
// saysError(el) for the script it is put into.
const JSErrorWords = `
	const ERROR_WORD = /^(errors?|errorbox|errorlist|errormessage|errormsg|errortext|alertbox|invalid|invalid-feedback)$/;
	const OK_WORD = /^(success|succeeded|info|notice-info|updated|saved|ok|valid-feedback)$/;
	const NOT_WORD = /^(no|not|non|free|none|zero|less|without)$/;
	const classTokens = (el) => (typeof el.className === 'string' ? el.className : (el.getAttribute('class') || '')).toLowerCase().split(/\s+/).filter(Boolean);
	const classParts = (t) => [t, ...t.split(/[-_]+/)];
	const classSays = (el, re) => classTokens(el).some((t) => classParts(t).some((p) => re.test(p)) && !classParts(t).some((p) => NOT_WORD.test(p)));
	// ERROR_HINT: a class attribute without it holds no ERROR_WORD (most
	// elements a walk meets; splitting their classes is what costs).
	const ERROR_HINT = /error|invalid|alertbox/i;
	const saysError = (el) => ERROR_HINT.test(typeof el.className === 'string' ? el.className : (el.getAttribute('class') || '')) &&
		classSays(el, ERROR_WORD) && !classSays(el, OK_WORD);
`
