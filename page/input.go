package page

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"github.com/lyrad/lyrad/cdpconn"
)

// Real input: every pointer and key event goes through Input.dispatch*Event
// on the tab's own session, in the tab's viewport coordinates (CSS pixels),
// the way the browser delivers a person's input: hit testing, focus,
// :hover, user activation and default actions all happen as they would.
// Nothing is done with element.click() or synthetic DOM events.

// Modifier bits of Input.dispatch*Event.
const (
	modAlt   int64 = 1
	modCtrl  int64 = 2
	modMeta  int64 = 4
	modShift int64 = 8
)

// modifierKeys are the keys that hold a modifier, with the DOM keyCode a
// page sees for them.
var modifierKeys = map[string]struct {
	bit  int64
	key  string
	code string
	vk   int64
}{
	"shift":   {modShift, "Shift", "ShiftLeft", 16},
	"control": {modCtrl, "Control", "ControlLeft", 17},
	"alt":     {modAlt, "Alt", "AltLeft", 18},
	"meta":    {modMeta, "Meta", "MetaLeft", 91},
}

var modifierAliases = map[string]string{
	"ctrl": "control", "control": "control", "controlormeta": "control",
	"shift": "shift", "alt": "alt", "option": "alt",
	"meta": "meta", "cmd": "meta", "command": "meta", "super": "meta", "win": "meta",
}

// keyNames indexes chromedp's key table (kb.Keys, which attaches to
// nothing) by DOM key value and by code, lower-cased: "enter",
// "arrowdown", "f5", "keya", "digit1". A key value several codes share
// ("Enter": Enter and NumpadEnter) keeps the code named like it.
var keyNames = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for _, k := range kb.Keys {
		if utf8.RuneCountInString(k.Key) > 1 {
			name := strings.ToLower(k.Key)
			if prev, ok := m[name]; !ok || (prev.Code != prev.Key && k.Code == k.Key) {
				m[name] = k
			}
		}
		if code := strings.ToLower(k.Code); code != "" {
			if _, ok := m[code]; !ok || !k.Shift {
				m[code] = k
			}
		}
	}
	aliases := map[string]string{
		"esc": "escape", "return": "enter", "del": "delete", "ins": "insert",
		"up": "arrowup", "down": "arrowdown", "left": "arrowleft", "right": "arrowright",
		"space": " ", "spacebar": " ", "pgup": "pageup", "pgdn": "pagedown",
	}
	for a, name := range aliases {
		if name == " " {
			m[a] = kb.Keys[' ']
			continue
		}
		if k, ok := m[name]; ok {
			m[a] = k
		}
	}
	return m
}()

// shifted is the key a code gives with Shift held: Digit1 gives "!",
// KeyA gives "A".
var shifted = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for _, k := range kb.Keys {
		if k.Shift && k.Print && k.Code != "" {
			m[k.Code] = k
		}
	}
	return m
}()

// KeyChord is a parsed press_key argument: the modifiers held and one key.
type KeyChord struct {
	mods []string // modifier names in press order ("control", "shift")
	bits int64
	key  *kb.Key
	name string // the key as the caller wrote it
}

// ParseChord reads "Enter", "a", "Control+a", "Shift+Tab",
// "Control+Shift+ArrowLeft", "Control++" (the plus key).
func ParseChord(s string) (KeyChord, error) {
	var ch KeyChord
	if s == "" {
		return ch, fmt.Errorf("key is empty")
	}
	var parts []string
	rest := s
	for {
		i := strings.IndexByte(rest, '+')
		if i <= 0 || i == len(rest)-1 {
			// No separator, or a "+" that is itself the key.
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:i])
		rest = rest[i+1:]
	}
	keyPart := parts[len(parts)-1]
	for _, m := range parts[:len(parts)-1] {
		name, ok := modifierAliases[strings.ToLower(strings.TrimSpace(m))]
		if !ok {
			return ch, fmt.Errorf("%q is not a modifier (Control, Shift, Alt, Meta)", m)
		}
		if ch.bits&modifierKeys[name].bit == 0 {
			ch.mods = append(ch.mods, name)
			ch.bits |= modifierKeys[name].bit
		}
	}
	ch.name = keyPart
	if r, size := utf8.DecodeRuneInString(keyPart); size == len(keyPart) {
		if k, ok := kb.Keys[r]; ok {
			ch.key = k
			return ch, nil
		}
	}
	lower := strings.ToLower(strings.TrimSpace(keyPart))
	if name, ok := modifierAliases[lower]; ok {
		// A modifier alone ("Shift"): pressed and released.
		mk := modifierKeys[name]
		ch.key = &kb.Key{Code: mk.code, Key: mk.key, Windows: mk.vk, Native: mk.vk}
		return ch, nil
	}
	if k, ok := keyNames[lower]; ok {
		ch.key = k
		return ch, nil
	}
	return ch, fmt.Errorf("%q is not a key lyrad knows", keyPart)
}

// Press sends the chord: modifiers down, the key down and up, modifiers up.
// A printable key with no Control, Alt or Meta held carries its text, so the
// page receives keypress and input as from a keyboard (Enter's "\r" submits
// a form implicitly).
func Press(ctx context.Context, s *cdpconn.Session, ch KeyChord) error {
	held := int64(0)
	release := func() {
		// Modifiers go up whatever happened, so none stays held for the
		// next call.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		for i := len(ch.mods) - 1; i >= 0; i-- {
			mk := modifierKeys[ch.mods[i]]
			held &^= mk.bit
			_, _ = cdp.Call(rctx, s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: input.DispatchKeyEventTypeKeyUp, Modifiers: held, Key: mk.key, Code: mk.code,
				WindowsVirtualKeyCode: mk.vk, NativeVirtualKeyCode: mk.vk,
			})
		}
	}
	defer release()
	for _, m := range ch.mods {
		mk := modifierKeys[m]
		held |= mk.bit
		if _, err := cdp.Call(ctx, s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: held, Key: mk.key, Code: mk.code,
			WindowsVirtualKeyCode: mk.vk, NativeVirtualKeyCode: mk.vk,
		}); err != nil {
			return err
		}
	}
	k := ch.key
	mods := held
	if held&modShift != 0 && !k.Shift {
		if sk, ok := shifted[k.Code]; ok {
			// Shift+1 is "!", as on a keyboard.
			k = sk
		}
	}
	if k.Shift {
		// An upper-case letter or a symbol is typed with Shift.
		mods |= modShift
	}
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: mods, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native,
	}
	if k.Print && k.Text != "" && held&(modCtrl|modAlt|modMeta) == 0 {
		down.Type = input.DispatchKeyEventTypeKeyDown
		down.Text, down.UnmodifiedText = k.Text, k.Unmodified
	}
	if _, err := cdp.Call(ctx, s, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeKeyUp, Modifiers: mods, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native,
	}
	_, err := cdp.Call(ctx, s, input.DispatchKeyEvent, up)
	return err
}

// EnterKey is the chord type_text's submit=true presses.
var EnterKey = KeyChord{key: kb.Keys['\r'], name: "Enter"}

// deleteKey deletes the selection (type_text with empty text).
var deleteKey = KeyChord{key: kb.Keys['\u007f'], name: "Delete"}

// insertText types text into the focused element as one input, the way an
// input method commits text: beforeinput and input fire, and no key events.
func insertText(ctx context.Context, s *cdpconn.Session, text string) error {
	_, err := cdp.Call(ctx, s, input.InsertText, input.InsertTextParams{Text: text})
	return err
}

// mouseMove moves the pointer to (x, y) with no button held.
func mouseMove(ctx context.Context, s *cdpconn.Session, x, y float64) error {
	_, err := cdp.Call(ctx, s, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, PointerType: input.DispatchMouseEventPointerTypeMouse,
	})
	return err
}

// mouseClick presses and releases the left button at (x, y), where the
// pointer already is. A press whose answer did not come in time (a page
// busy in a handler) is still followed by its release, in the background,
// so no button stays held for the next call.
func mouseClick(ctx context.Context, s *cdpconn.Session, x, y float64) error {
	ev := func(t input.DispatchMouseEventType, buttons int64) input.DispatchMouseEventParams {
		return input.DispatchMouseEventParams{Type: t, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: buttons, ClickCount: 1,
			PointerType: input.DispatchMouseEventPointerTypeMouse}
	}
	if _, err := cdp.Call(ctx, s, input.DispatchMouseEvent, ev(input.DispatchMouseEventTypeMousePressed, 1)); err != nil {
		if ctx.Err() != nil {
			go func() {
				rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_, _ = cdp.Call(rctx, s, input.DispatchMouseEvent, ev(input.DispatchMouseEventTypeMouseReleased, 0))
			}()
		}
		return err
	}
	_, err := cdp.Call(ctx, s, input.DispatchMouseEvent, ev(input.DispatchMouseEventTypeMouseReleased, 0))
	return err
}

// mouseWheel turns the wheel at (x, y) by dy pixels (positive scrolls down).
// The params are spelled out: Chrome requires deltaX, and the generated
// type leaves out a zero.
func mouseWheel(ctx context.Context, s *cdpconn.Session, x, y, dy float64) error {
	return s.Call(ctx, input.DispatchMouseEvent.Method, map[string]any{
		"type": input.DispatchMouseEventTypeMouseWheel, "x": x, "y": y, "deltaX": 0, "deltaY": dy, "pointerType": "mouse",
	}, nil)
}
