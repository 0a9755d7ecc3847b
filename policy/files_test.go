package policy

import "testing"

func TestFileRefusal(t *testing.T) {
	p := Places{Private: []string{"/home/u/.lyra-browser"}, Open: []string{"/home/u/.lyra-browser/downloads"}}
	for url, want := range map[string]string{
		"file:///home/u/.lyra-browser/downloads/invoice.html":                         "",
		"file:///home/u/Documents/report.pdf":                                         "",
		"file:///tmp/x/a.html#frag":                                                   "",
		"file://localhost/home/u/a.txt":                                               "",
		"file:///home/u/.lyra-browser/downloads/":                                     ReasonFileDirectory,
		"file:///home/u/":                                                             ReasonFileDirectory,
		"file:///":                                                                    ReasonFileDirectory,
		"file:///home/u/.lyra-browser/downloads/.hidden":                              ReasonFileSecret,
		"file:///home/u/.lyra-browser/profile/Default/Cookies":                        ReasonFileSecret,
		"file:///home/u/.lyra-browser/downloads/../audit.jsonl":                       ReasonFileSecret,
		"file:///home/u/.ssh/id_test":                                                 ReasonFileSecret,
		"file:///home/u/%2Essh/id_test":                                               ReasonFileSecret,
		"file:///home/u/a/../.ssh/id_test":                                            ReasonFileSecret,
		"file:///home/u/.gnupg/pubring.kbx":                                           ReasonFileSecret,
		"file:///home/u/.aws/credentials":                                             ReasonFileSecret,
		"file:///home/u/.config/gcloud/credentials.db":                                ReasonFileSecret,
		"file:///home/u/.kube/config":                                                 ReasonFileSecret,
		"file:///home/u/.netrc":                                                       ReasonFileSecret,
		"file:///home/u/.local/share/keyrings/login.keyring":                          ReasonFileSecret,
		"file:///home/u/.config/chromium/Default/Login%20Data":                        ReasonFileSecret,
		"file:///Users/u/Library/Keychains/login.keychain-db":                         ReasonFileSecret,
		"file:///Users/u/Library/Application%20Support/Google/Chrome/Default/Cookies": ReasonFileSecret,
		"file:///home/u/backup/id_ed25519":                                            ReasonFileSecret,
		"file:///etc/shadow":                                                          ReasonFileSecret,
		"file:///ETC/passwd":                                                          ReasonFileSecret,
		"file:///proc/self/environ":                                                   ReasonFileSecret,
		"file:///sys/kernel/x":                                                        ReasonFileSecret,
		"file:///root/a.txt":                                                          ReasonFileSecret,
		"file://otherhost/share/a.txt":                                                ReasonFileSecret,
		"https://example.com/":                                                        ReasonFileSecret,
	} {
		if got := p.Refusal(url); got != want {
			t.Errorf("Refusal(%q) = %q, want %q", url, got, want)
		}
	}
}

// A File refusal holds whatever was approved, in observe mode, and for the
// user's own hand during a takeover; without one a File request needs its
// exact URL's grant, once.
func TestJudgeFile(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	key, page := "file:///home/u/.ssh/id_test", "file:///tmp/d/invoice.html"
	g.Grant("s", ScopeOf(key), Navigate, GrantOptions{Channel: ChannelElicit})
	g.Grant("s", ScopeOf(page), Navigate, GrantOptions{Channel: ChannelElicit})
	judge := func(u string, sub bool, mode Mode, takeover, user bool) Verdict {
		return Judge(Judgement{Class: Classify(Request{URL: u, InSubframe: sub}, page), Session: "s", Grants: g, Now: clk.Now(),
			Mode: mode, Takeover: takeover, UserActivated: user, FileRefusal: (Places{}).Refusal(u)})
	}
	for _, c := range []struct {
		mode           Mode
		takeover, user bool
	}{{Enforce, false, false}, {Observe, false, false}, {Enforce, true, true}} {
		if v := judge(key, false, c.mode, c.takeover, c.user); v.Allow || v.Reason != ReasonFileSecret || v.Kind != File {
			t.Errorf("%+v: the key: %+v", c, v)
		}
		if v := judge("file:///tmp/d/", true, c.mode, c.takeover, c.user); v.Allow || v.Reason != ReasonFileDirectory {
			t.Errorf("%+v: a listing in a frame: %+v", c, v)
		}
	}
	if v := judge("file:///tmp/d/notes.txt", true, Enforce, false, false); v.Allow || v.Reason != ReasonNotGranted {
		t.Errorf("an unapproved file in a frame: %+v", v)
	}
	if v := judge(page, false, Enforce, false, false); !v.Allow || v.Spent != Navigate {
		t.Errorf("the approved file: %+v", v)
	}
	if v := judge(page, true, Enforce, false, false); v.Allow {
		t.Errorf("the approved file twice: %+v", v)
	}
}
