package datadir

import (
	"encoding/json"
	"os"
)

// UA is what browser-ua.json (BrowserUA) remembers of a browser binary: the
// user agent it sends with a window, so that a headless launch can send it
// from its first request, and the client hints it reports itself, which
// the --user-agent switch would otherwise empty. Executable and Stamp say
// which binary it was learned from: a binary replaced in place (an
// upgrade) has another stamp, and is learned again.
type UA struct {
	Executable  string       `json:"executable"`
	Stamp       string       `json:"executable_stamp,omitempty"`
	Product     string       `json:"product"`
	UserAgent   string       `json:"user_agent"`
	ClientHints *ClientHints `json:"client_hints,omitempty"`
	// AskWithoutSwitch: the hints a request sent under the switch could
	// not be completed; the next launch asks the browser without it.
	AskWithoutSwitch bool `json:"ask_without_switch,omitempty"`
}

// ClientHints is a browser's user agent client hints, as it reports them
// itself. The names are CDP's Emulation.UserAgentMetadata, so that the
// same value is the override each target is given. fullVersion is
// deprecated in the protocol but still read by Chrome for uaFullVersion
// and Sec-CH-UA-Full-Version.
type ClientHints struct {
	Brands          []Brand  `json:"brands"`
	FullVersionList []Brand  `json:"fullVersionList"`
	FullVersion     string   `json:"fullVersion,omitempty"`
	Platform        string   `json:"platform"`
	PlatformVersion string   `json:"platformVersion"`
	Architecture    string   `json:"architecture"`
	Model           string   `json:"model"`
	Mobile          bool     `json:"mobile"`
	Bitness         string   `json:"bitness"`
	Wow64           bool     `json:"wow64"`
	FormFactors     []string `json:"formFactors"`
}

// Brand is one entry of ClientHints' brands or fullVersionList.
type Brand struct {
	Brand   string `json:"brand"`
	Version string `json:"version"`
}

// ReadUA reads browser-ua.json. A missing file is fs.ErrNotExist; one that
// does not parse is an error, and the caller learns the browser again.
func (d Dir) ReadUA() (UA, error) {
	var u UA
	b, err := os.ReadFile(d.BrowserUA())
	if err != nil {
		return u, err
	}
	if err := json.Unmarshal(b, &u); err != nil {
		return UA{}, err
	}
	return u, nil
}

// WriteUA replaces browser-ua.json (0600) at once: a launch reading it
// while another writes it sees the old file or the new one, never half.
func (d Dir) WriteUA(u UA) error {
	b, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return err
	}
	return putPrivateFile(d.BrowserUA(), append(b, '\n'))
}
