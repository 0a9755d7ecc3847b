package session

import "github.com/lyrad/lyrad/page"

// Typed answers. Package session says what happened; package tools alone
// chooses the wire keys and builds the envelopes.

// ElementInfo names the element a call acted on.
type ElementInfo struct {
	Tag  string // button, a, input ...
	Role string // button, link, textbox ...
	Name string // its accessible name, cut at 80 characters
}

// ActResult is what an acting call answers. The common part is filled by
// the pipeline (act.go); each tool fills its own part.
type ActResult struct {
	URL      string // where the tab acted on stands (after a tab is closed: the active one)
	Title    string
	TabCount int
	Selector string // as given; "" when the tool takes none
	Matches  int    // how many elements the selector matched; 0 without one

	NewTab      bool // the action opened a tab, and the session is on it
	Navigated   bool // the tab's main frame committed a new document
	Navigating  bool // something the action started was still loading
	Dialogs     []DialogRecord
	DialogsMore int      // dialogs beyond those listed
	Hints       []string // the next moves, joined into the reply's hint

	// Changes is what changed in the action map (changes.go): its lines
	// that appeared, went or changed, bounded, or that a new page or tab
	// was loaded; "" when not told. ReadID names the read it was told from.
	Changes string
	ReadID  string
	// ChangesNested is Changes in the nested form of the map, each line
	// under the containers that hold it (snapshot.NestedChanges): for the
	// Playwright surface's acting calls (nestedTools), "" otherwise or
	// when nothing changed.
	ChangesNested string

	// Element is what was acted on (clicked, hovered, typed into, chosen
	// in, scrolled to).
	Element *ElementInfo

	TypedChars int             // type_text
	Submitted  bool            // type_text: Enter was pressed after
	Field      *FieldValue     // type_text, select_option, a click on a checkbox: what the field holds after
	Key        string          // press_key, as given
	Keys       []string        // press_key with a sequence, as given
	Selected   *SelectedOption // select_option
	Scroll     *ScrollPosition // scroll
	Load       *LoadInfo       // navigate, go_back, reload_page
	Tabs       *TabList        // tabs
	Closed     *TabInfo        // tabs close: the tab closed
	Editor     *EditorResult   // set_editor
	Files      []UploadedFile  // upload_file: what was attached
	Sent       *SendResult     // save_draft, publish
	Download   *DownloadInfo   // a declared download, saved
}

// DownloadInfo is the file a call declared and kept.
type DownloadInfo struct {
	Filename  string
	Path      string
	Bytes     int64
	URLOrigin string
	Observed  bool // observe mode: kept, as enforce would have
}

// EditorResult is what set_editor wrote, and the field the form posts.
type EditorResult struct {
	Kind        string // ckeditor, tinymce, iframe, contenteditable, quill, prosemirror
	Surface     string // what was written: an iframe's body, the editing host
	Written     int    // characters written
	SyncedField string // the field the form posts for it, "" when the surface is what it posts
	FieldChars  int    // characters that field now holds
}

// UploadedFile is a file handed to a page.
type UploadedFile struct {
	Name  string // the file's name, as the page sees it
	Path  string // where it is on this machine
	Bytes int64
}

// SendResult is what save_draft or publish sent and what the page said.
type SendResult struct {
	Published bool                // the live control was set and the form sent
	State     []page.PublishState // the publish state the form was sent with
	Errors    []string            // what the page showed afterwards as errors
	Alert     string              // the first of them, or a dialog's message
	Refused   bool                // the site refused it
	FormStill bool                // the form is still on the page
}

// SelectedOption is the option select_option chose.
type SelectedOption struct {
	Value string
	Label string
	Index int
}

// FieldValue is what a field holds after an acting call changed it.
type FieldValue struct {
	Value     string // cut to 200 characters; "" for a password and a checkbox
	Checkable bool   // a checkbox, radio or switch: Checked says its state
	Checked   bool
	Password  bool // a password field: Filled says only whether it holds anything
	Filled    bool
}

// ScrollPosition is where a scroll settled.
type ScrollPosition struct {
	Y, Height, ViewportHeight int64
	AtBottom                  bool
	Moved                     bool         // the window or a panel moved
	Panel                     *PanelScroll // the panel around the element that moved, if one did
}

// PanelScroll is where a panel that scrolls by itself settled.
type PanelScroll struct {
	Element                   string // described as hints describe elements: div#list.inbox
	Y, Height, ViewportHeight int64
	AtBottom                  bool
}

// LoadInfo describes the document a navigation, a history step or a reload
// ended on. HTTPStatus and ContentType are nil when no HTTP response was
// involved (about:blank, data:, a back/forward cache restore).
type LoadInfo struct {
	HTTPStatus  *int64
	ContentType *string // the media type alone: application/pdf
	FromCache   bool    // restored from the back/forward cache
	Stayed      bool    // the page asked to stay and the answer kept it
}

// TabInfo is one open tab.
type TabInfo struct {
	Index  int
	URL    string
	Title  string
	Active bool
}

// TabList is the open tabs, in the order they were opened.
type TabList struct {
	Tabs   []TabInfo
	Active int // index of the active tab, -1 when none
}
