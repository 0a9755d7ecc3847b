package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/download"
)

// What an acting call answers about downloads (package download keeps
// them behind the guard). A call that declared one (download=true) waits for it
// and answers with the file kept, download_not_started or download_failed;
// one that did not answers download_blocked when a download it set off was
// refused.

// Download statuses, the names agents see on the wire.
const (
	StatusDownloadBlocked    = "download_blocked"
	StatusDownloadNotStarted = "download_not_started"
	StatusDownloadFailed     = "download_failed"
)

// errDownloadStarted ends a navigation's wait: what it loads is the file
// the call declared (or, in observe mode, one it let through), which has
// started.
var errDownloadStarted = errors.New("the declared download started")

// downloadAnswer waits for the call's declared download, or looks for one
// it set off that was blocked.
func (a *act) downloadAnswer(ctx context.Context) *Error {
	if a.exp != nil {
		out := a.exp.Wait(ctx, a.spec.downloadWait)
		switch out.Kind {
		case download.Saved:
			f := out.File
			a.res.Download = &DownloadInfo{Filename: f.Filename, Path: f.Path, Bytes: f.Bytes, URLOrigin: f.URLOrigin, Observed: out.Observed}
			return nil
		case download.Blocked:
			return newError(StatusDownloadBlocked,
				fmt.Sprintf("the file %s came from %s, not from %s, which the DOWNLOAD approval names: it was not kept", out.Filename, out.URLOrigin, a.dlFrom.Loggable()),
				"Nothing reached the disk. A page, a frame in it or a redirect handed over another site's file. To save a file from "+out.URLOrigin+", navigate to its URL there with download=true (the user is asked for that site).").
				blocked(out.Filename, out.URLOrigin).from(a.dlFrom.Loggable())
		case download.Failed:
			return newError(StatusDownloadFailed, fmt.Sprintf("the download of %s did not complete (%s)", out.Filename, out.Reason),
				failedHint(out.Reason)).failed(out.Reason, out.Filename, out.URLOrigin)
		default:
			return newError(StatusDownloadNotStarted, fmt.Sprintf("no download started within %v", a.spec.downloadWait),
				"The action did not hand the browser a file; the DOWNLOAD approval was given back. Check that the control offers a file (read_page), or navigate to the file's URL with download=true.")
		}
	}
	tabs := []target.ID{a.tab.ID}
	for _, p := range a.outcome.Popups {
		tabs = append(tabs, p.ID)
	}
	await := a.b.downloads.AwaitBlocked
	if a.st.Saves && a.spec.usable == actClick {
		// A click on a link that saves its file (a hover does not).
		await = a.b.downloads.AwaitSaving
	}
	if bd := await(ctx, tabs, a.start, a.spec.downloadGrace); bd != nil {
		if bd.Observed {
			// Observe mode lets it through: saved like a declared one, and
			// answered so, observed.
			return a.observedAnswer(ctx, bd)
		}
		return downloadBlocked(bd)
	}
	return nil
}

// observedAnswer waits for the file observe mode let through and answers
// with it, as a declared call would.
func (a *act) observedAnswer(ctx context.Context, bd *download.Undeclared) *Error {
	out := a.b.downloads.WaitObserved(ctx, bd)
	switch out.Kind {
	case download.Saved:
		f := out.File
		a.res.Download = &DownloadInfo{Filename: f.Filename, Path: f.Path, Bytes: f.Bytes, URLOrigin: f.URLOrigin, Observed: true}
		return nil
	case download.Failed:
		return newError(StatusDownloadFailed, fmt.Sprintf("the download of %s did not complete (%s)", out.Filename, out.Reason),
			failedHint(out.Reason)).failed(out.Reason, out.Filename, out.URLOrigin)
	}
	return nil
}

func downloadBlocked(bd *download.Undeclared) *Error {
	return newError(StatusDownloadBlocked, "the page offered a file and it was not kept: the call did not declare a download",
		"Nothing reached the disk. To save it, repeat the action with download=true (the user is asked), or navigate to the file with download=true.").
		blocked(bd.Filename, bd.URLOrigin)
}

// blockedNow is a download this call set off that was blocked, as an
// error for a navigation's wait to end with.
func (a *act) blockedNow() error {
	if a.exp != nil {
		select {
		case <-a.exp.Started():
			return errDownloadStarted
		default:
		}
		return nil
	}
	if bd := a.b.downloads.BlockedSince(a.start, a.tab.ID); bd != nil {
		return downloadBlocked(bd)
	}
	if a.b.downloads.ObservedSince(a.start, a.tab.ID) != nil {
		// Observe mode let it through: what the tab loads is that file,
		// which downloadAnswer waits for.
		return errDownloadStarted
	}
	return nil
}

func failedHint(reason string) string {
	switch reason {
	case "too_large":
		return "The file is larger than LYRA_BROWSER_DOWNLOAD_MAX_BYTES allows; the transfer was stopped and nothing was kept."
	case "timeout":
		return "The transfer took longer than LYRA_BROWSER_DOWNLOAD_TIMEOUT and was stopped; nothing was kept."
	}
	return "The transfer was interrupted; nothing was kept. Retry."
}

// lateDownloadsHint tells of downloads refused since the last acting call
// ended: the page started them with no call there to answer for them.
func lateDownloadsHint(late []download.Undeclared) string {
	if len(late) == 0 {
		return ""
	}
	first := late[0]
	more := ""
	if len(late) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(late)-1)
	}
	return fmt.Sprintf("After the last call had answered, the page offered a file, %s from %s%s, and it was not kept: no call had declared a download. Nothing reached the disk. To save it, repeat the action that offers it with download=true (the user is asked).", quoted(first.Filename, 80), first.URLOrigin, more)
}
