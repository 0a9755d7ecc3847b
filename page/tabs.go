package page

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// The browser's tabs, asked of the browser process (the Target domain on
// the browser's own session): it answers a tab's URL and title even while
// the tab's page is stuck in a script loop.

// TabInfo is a tab's URL and title as the browser has them now.
type TabInfo struct {
	URL, Title string
}

// TabInfos answers the URL and title of every target the browser has.
func TabInfos(ctx context.Context, conn *cdpconn.Conn) (map[target.ID]TabInfo, error) {
	res, err := cdp.Call(ctx, conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	out := make(map[target.ID]TabInfo, len(res.TargetInfos))
	for _, t := range res.TargetInfos {
		if t != nil {
			out[t.TargetID] = TabInfo{URL: t.URL, Title: t.Title}
		}
	}
	return out, nil
}

// TabInfoOf answers the URL and title of tab id.
func TabInfoOf(ctx context.Context, conn *cdpconn.Conn, id target.ID) (TabInfo, error) {
	info, err := cdp.Call(ctx, conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	if err != nil {
		return TabInfo{}, err
	}
	if info.TargetInfo == nil {
		return TabInfo{}, ErrTabGone
	}
	return TabInfo{URL: info.TargetInfo.URL, Title: info.TargetInfo.Title}, nil
}

// ActivateTab brings tab id to the front.
func ActivateTab(ctx context.Context, conn *cdpconn.Conn, id target.ID) error {
	_, err := cdp.Call(ctx, conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: id})
	return err
}

// OpenTab opens a tab on url and answers its id.
func OpenTab(ctx context.Context, conn *cdpconn.Conn, url string) (target.ID, error) {
	res, err := cdp.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url})
	if err != nil {
		return "", err
	}
	return res.TargetID, nil
}

// CloseTab closes tab id.
func CloseTab(ctx context.Context, conn *cdpconn.Conn, id target.ID) error {
	_, err := cdp.Call(ctx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id})
	return err
}

// TargetEvents names, from now until stop is called, the target of each
// event that attaches, detaches or destroys one: a tab opening or closing
// is among them. The channel is closed when the connection ends.
func TargetEvents(conn *cdpconn.Conn) (ids <-chan target.ID, stop func()) {
	events, unsubscribe := conn.Subscribe(target.DetachedFromTarget.Method, target.TargetDestroyed.Method, target.AttachedToTarget.Method)
	out := make(chan target.ID, 16)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range events {
			var e struct {
				TargetID   target.ID    `json:"targetId"`
				TargetInfo *target.Info `json:"targetInfo"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				continue
			}
			if e.TargetInfo != nil {
				e.TargetID = e.TargetInfo.TargetID
			}
			select {
			case out <- e.TargetID:
			case <-done:
				return
			}
		}
	}()
	return out, func() {
		close(done)
		unsubscribe()
	}
}
