package page

// The page-side JavaScript of the form tools (read_form, read_draft,
// set_editor, save_draft, publish). Like scripts.go's, all of it runs in
// lyrad's isolated world: it shares the DOM with the page, never its
// globals. That is why a CKEditor instance is recognised by the markup it
// builds (.cke, iframe.cke_wysiwyg_frame) and synced by doing what its
// updateElement() does (copy the editing body's HTML into the textarea the
// form posts), not by calling window.CKEDITOR, which this world cannot see.
//
// Every string the page controls is cut before it is returned: a hostile
// page's label or value cannot blow up an answer.

// jsReadForm reads one document for read_form: fields, buttons, editors
// and publish controls inside root (default: the first form; whole=true:
// the whole document), through open shadow roots. Frames are read
// separately, each in its own world. Values are cut to valueChars; a
// password's value is never read.
var jsReadForm = script("read_form.js")

// jsReadDraft reads one document for read_draft: what the form (the first
// form, else the whole document) is about to send, cut to maxChars each.
// Checkboxes and radios appear only when checked; hidden inputs are
// counted; a password's value is never read.
var jsReadDraft = script("read_draft.js")

// jsFrameScope runs on an iframe element (this) in its parent's world:
// whether the frame is inside what read_form reads (root, default the
// first form; whole=true: everything), and whether it is an editor this
// world already reads through contentDocument (then its own document is
// not read again).
var jsFrameScope = script("frame_scope.js")

// jsFindEditor returns the first editor of the document (an editor iframe
// first: a page may keep both, and the iframe is where
// the editor writes), else the first inline editor; null when none.
var jsFindEditor = script("find_editor.js")

// jsWriteEditor writes content into the editor `this` is (an editor
// iframe, an editing host, or an element inside either), as text or, with
// html, as markup; fires input and change; then fills the field the form
// posts the way CKEditor's updateElement() does (the body's HTML into the
// hidden textarea) and fires input and change there too.
var jsWriteEditor = script("write_editor.js")

// jsPublishState lists the checked publish controls of the document's
// first form (else the whole document): what save_draft checks before it
// sends and publish reads back.
var jsPublishState = script("publish_state.js")

// jsAfterSend reads a page back after a form was sent: a server that
// refuses usually answers the form again with its reasons, on the same URL
// and with a 200, so only the page can tell a refusal from a save. The
// reasons are what sites write errors in: alert and error containers
// (role=alert, .alert, .error, .errors, .field-error, .invalid-feedback,
// .text-danger ...; the innermost when they nest), and fields marked
// aria-invalid=true with their message (aria-errormessage, else
// aria-describedby). A box that is not visible or says nothing, and one
// that says success (.alert-success, .notice-info), does not count; nor
// do words: a page whose article says "error" is no refusal.
var jsAfterSend = script("after_send.js")

// jsValidityOf reads, on a control that sends a form, whether the
// browser's own validation stops the send: the form validates (no
// novalidate, no formnovalidate on the control) and some field of it is
// :invalid. fields are those fields' labels and validationMessage (at
// most 5). Reading validity fires no event.
var jsValidityOf = script("validity_of.js")

// jsLocateSubmit finds the submit control whose text is want (what
// read_form's submitText gives): exact text first, then the same text in
// any case; a usable match before one that is not. Matches that send the
// same form the same way (a CMS's Save at the top and at the bottom) are
// one control. It answers {el, info}: info is JSON with the matches, how
// they matched, whether they were ambiguous, and the page's submit
// controls as candidates.
var jsLocateSubmit = script("locate_submit.js")

// jsSubmitterOf describes a control that sends a form: its text, name
// and value, which save_draft reads for a control that itself publishes.
var jsSubmitterOf = script("submitter_of.js")

// jsFormSendsOf reads, on the control that sends a form (or any element
// in one), where the form goes and what it sends under the names of its
// publish controls, in one synchronous read, so that the page cannot
// change one between the two: action (the control's formaction for a
// submit button, else the form's action), method, fields (for each publish
// control's name, the values the browser would put in the body now:
// checked radios and checkboxes, any other field of that name, the
// control itself when it is a named submit button), and state: the form's
// checked publish controls. It fires no event (new FormData would fire
// the page's formdata listeners). A form-associated custom element with
// such a name, whose value this world cannot read, puts an impossible
// value in: no body matches it.
var jsFormSendsOf = script("form_sends_of.js")

// jsArmSendCheck arms, on the control that sends a form, lyrad's check of
// what the frame's forms send: fields is the publish state approved
// (FormSends.Fields). Chrome 156 hands no navigation's body to DevTools,
// so the check stands where the browser builds the body: a listener for
// the formdata event on the frame's window, which the browser fires on
// every form submission once the page's submit handlers have run and
// clones into the body as soon as its listeners return. It is the last
// listener (it stops those the page adds after it), and it reads the
// entry list the browser is about to send. When the publish fields do
// not hold what was approved, it takes the form out of the document for
// that moment: the browser then drops the submission (a form that is no
// longer connected cannot navigate), and the form is put back. What it
// stopped is kept for jsSendStopped. Armed again, it replaces itself;
// jsDisarmSendCheck takes it away.
var jsArmSendCheck = script("arm_send_check.js")

// jsDisarmSendCheck takes the check armed with token away (one armed
// since by another call stays).
var jsDisarmSendCheck = script("disarm_send_check.js")

// jsSendStopped answers what the armed check stopped in this frame since
// it was armed ("" for nothing).
var jsSendStopped = script("send_stopped.js")
