package page

// The page-side JavaScript of the acting tools. All of it runs in lyrad's
// isolated world (see world.go): it shares the DOM with the page, not its
// globals, so nothing here is visible to the page or can be hooked by it.
// Each is a whole function in its own file under js/ (see js.go); the
// helpers it needs are included into it, never installed as globals.

// jsLocate finds what a selector names (jsFind) and returns {count, el,
// why}: how many elements matched and the one to act on. For css and
// xpath that is the first visible match in document order (else the
// first). For text=, where a phrase often sits in prose as well as on the
// control, it is the match a person would act on: visible first, then not
// covered by something else at its centre, then a control (a role, a
// click handler, a pointer cursor, a tabindex), then in document order;
// why says what set it apart.
var jsLocate = script("locate.js")

// jsMatchesAt answers whether the element at (x, y) of this frame's
// viewport is, or lies inside, one of the elements a selector names: a
// cover that is itself a match.
var jsMatchesAt = script("matches_at.js")

// jsState reports whether the element can be acted on now, and what it is.
var jsState = script("state.js")

// jsPrepare brings the element into view and picks the point to act on:
// the centre of its first box, clipped to what shows of it, in the
// viewport and inside every panel around it that clips (overflow other
// than visible). When it does not show whole there, or something else is
// at that point, it is scrolled to the middle of every scrolling ancestor
// (scrollIntoView scrolls them all, the window last) and measured again.
// It then asks the page what is at that point, so a pointer never lands
// on something covering the element, and says whether the element is an
// item of a list, a menu, a tree or a grid (or inside one, or one of like
// siblings). Coordinates
// are this frame's viewport's.
var jsPrepare = script("prepare.js")

// jsHit answers, after the pointer moved, whether the element is still
// there and still the one at the point (hover effects can cover it, or
// remove it). It runs as a task after the pointer's last move was handled
// (a move is answered once the frame that handled it ran, its
// requestAnimationFrame callbacks included), so what the page did on the
// pointer's arrival is seen.
var jsHit = script("hit.js")

// jsFrameHit runs on a frame's element (an iframe, frame, object or
// embed) in the document around it, for the point (x, y) in the frame's
// viewport: it answers where that point lies in this document's viewport
// (the frame's content box is where its viewport starts) and what this
// document has there, through open shadow roots and the closed ones the
// frame element lies in. With top set, the point tested is (tx, ty)
// instead, the point in the tab's viewport where input is dispatched.
// Nothing is covered when the frame element itself is hit; otherwise
// covered names what is, and frame is the origin a frame hit shows ("?"
// when it is not this document's to read).
var jsFrameHit = script("frame_hit.js")

// jsFrameHitAt is the element jsFrameHit found at (hx, hy), as an object
// (whose frame CDP can name).
var jsFrameHitAt = script("frame_hit_at.js")

// jsFocusText focuses a text field and selects what it holds, so that the
// text typed next replaces it. It reports whether focus arrived.
var jsFocusText = script("focus_text.js")

// jsStateFocus is jsState of el; with ff ({origin, timer, ms}: a
// FocusFirst) it then focuses el as jsFocusText does, when el is a usable,
// writable text field (what the acting pipeline would find usable and fit
// for type_text: connected, visible, enabled, a text field, not read-only,
// not set whole) of a document of origin ff.origin. state.focused says it
// was.
//
// jsStateOf is jsState in the same form, without the focus: what a look
// sends when it may not focus (every click's, hover's, select's), a
// shorter script to send and compile.
var jsStateOf = "function(el) {\n  return (" + jsState + ").call(el);\n}"

var jsStateFocus = "function(el, ff) {\n  const st = (" + jsState + ").call(el);\n" +
	"  if (ff && location.origin === ff.origin && st.connected && st.visible && st.enabled && st.textField && !st.readOnly && !st.valueType)\n" +
	"    st.focused = (" + jsFocusText + ").call(el, ff.timer, ff.ms);\n  return st;\n}"

// jsSetValue gives an input whose value is set whole (date, time,
// datetime-local, month, week, color, range) the value v, in the ISO form
// the input holds, the way a person's choice in its picker does: focus,
// the value, then input and change. It answers the value the input holds
// then and whether it took v as given (the browser drops a value it cannot
// parse, and a range moves to its nearest step within min and max).
var jsSetValue = script("set_value.js")

// jsFieldValue answers what a field holds now, for an acting call's reply:
// a control's value (cut to 200 characters), a checkbox's or radio's
// checked state, for a password only whether it is filled. A label stands
// for its control. field is false for an element that is no field.
var jsFieldValue = script("field_value.js")

// jsWaitChange resolves on the next change to this document (nodes,
// attributes, text) or after ms, whichever is first: a control that appears
// or gets enabled wakes the caller at once; the time limit covers what no
// mutation announces (a style sheet, an animation).
var jsWaitChange = script("wait_change.js")

// jsDrain resolves after the tasks the page queued so far (a click
// handler's setTimeout(0), a form submission) have run: the events they
// raise then reach lyrad before this call's answer does. It answers
// whether the window is closing (a handler called window.close() on a
// window a script opened), at once, as a closing page may run no more
// tasks. Given ms, its own task is timed that long after the call: what
// the page timed to run by then has run too.
var jsDrain = script("drain.js")

// jsScrollState reports the window's scroll position once it has settled:
// read each frame until it has not moved for three frames (a wheel scroll
// is animated), at most ms. With wantMove, a position still at fromY is not
// settled for the first 300 ms: a wheel turn takes a frame or two to start
// the scroll.
var jsScrollState = script("scroll_state.js")

// jsScrollTo jumps to the top or the bottom of the document.
var jsScrollTo = script("scroll_to.js")

// jsScrollIntoView brings an element to the middle of the viewport.
var jsScrollIntoView = script("scroll_into_view.js")

// jsScrollPanels brings an element to the middle of the viewport and of
// every panel around it that scrolls, and answers the innermost panel that
// moved (the one a person would say was scrolled), described as hints
// describe elements, with where it now stands; null when no panel moved.
var jsScrollPanels = script("scroll_panels.js")

// jsFrames resolves after the page has drawn two frames (or 100 ms where
// frames are throttled): the browser routes pointer events to an
// out-of-process frame by where the last drawn frame put it, so after a
// scroll the input waits for the drawing.
var jsFrames = script("frames.js")

// jsFocusedFrame answers the element holding the focus when it is a frame
// (the focus is inside that frame's document), through open shadow roots;
// null otherwise.
var jsFocusedFrame = script("focused_frame.js")

// jsSelect chooses an option of the <select> `this` and fires input and
// change the way a person's choice does (a page listens for those). It
// answers what was chosen, or why nothing was.
var jsSelect = script("select.js")

// The small ones: the viewport's size (viewport.js), whether a checkbox is
// checked (checked.js), where a frame element's content box and the
// window's scroll stand (content_box.js, window_scroll.js, for a capture's
// place in the tab), scrolling the window by a delta (scroll_by.js) and an
// element to the middle of the view both ways (scroll_to_centre.js, for
// highlight_element).
var (
	jsViewport       = script("viewport.js")
	jsChecked        = script("checked.js")
	jsContentBox     = script("content_box.js")
	jsWindowScroll   = script("window_scroll.js")
	jsScrollBy       = script("scroll_by.js")
	jsScrollToCentre = script("scroll_to_centre.js")
)
