package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/lyrad/lyrad/datadir"
)

// checkHTTP reads the token and the endpoint from the data directory and,
// when a daemon serves HTTP, knocks on its front door.
func checkHTTP(ctx context.Context, data datadir.Dir, daemonRunning bool, info *HTTPInfo) []Check {
	// The token is only read: doctor must not create, replace or chmod it.
	if tok, err := data.ReadToken(); err == nil {
		info.Token = tok
	}
	skipAll := func(why string) []Check {
		return []Check{skip(NameHTTPToken, why), skip(NameHTTPOrigin, why), skip(NameHTTPHost, why)}
	}
	endpoint, err := data.ReadEndpoint()
	switch {
	case errors.Is(err, fs.ErrNotExist) && daemonRunning:
		return skipAll("the daemon does not serve HTTP (lyrad serve --http does)")
	case errors.Is(err, fs.ErrNotExist):
		return skipAll("no daemon serves HTTP")
	case err != nil:
		return skipAll(err.Error())
	case !daemonRunning:
		return skipAll("no daemon running (" + filepath.Base(data.HTTPInfo()) + " is left over from one that stopped)")
	}
	info.Serving, info.URL = true, endpoint
	return []Check{CheckHTTPToken(endpoint, info.Token), CheckHTTPOrigin(endpoint, info.Token), CheckHTTPHost(endpoint, info.Token)}
}

// knock POSTs a JSON-RPC ping to the MCP endpoint. Without an Accept header
// an MCP server answers it 400 before any session exists, so a request that
// gets past the door changes nothing in the daemon.
func knock(endpoint, token, origin, host string) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, strings.TrimSpace(firstLine(string(b))), nil
}

// tokenFile names the token's file in messages: the zero Dir's paths are
// the bare names.
var tokenFile = datadir.Dir{}.Token()

const notLyrad = "whatever answers there is not lyrad's guarded front door: stop it, and restart lyrad serve --http"

// CheckHTTPToken checks that the HTTP front door at endpoint refuses a
// request without the bearer token (401) and lets one with token through.
func CheckHTTPToken(endpoint, token string) Check {
	code, _, err := knock(endpoint, "", "", "")
	if err != nil {
		return fail(NameHTTPToken, "the HTTP front door does not answer: "+err.Error(), "restart lyrad serve --http")
	}
	if code != http.StatusUnauthorized {
		return fail(NameHTTPToken, fmt.Sprintf("a request without a token got %d, not 401: any local process or web page can drive the browser", code), notLyrad)
	}
	if token == "" {
		return fail(NameHTTPToken, "a request without a token got 401, but there is no "+tokenFile+" to try the token", "restart lyrad serve --http: it creates the token")
	}
	code, msg, err := knock(endpoint, token, "", "")
	if err != nil {
		return fail(NameHTTPToken, "the HTTP front door does not answer: "+err.Error(), "restart lyrad serve --http")
	}
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		return fail(NameHTTPToken, fmt.Sprintf("a request with the token from %s was refused too (%d: %s)", tokenFile, code, msg),
			"restart lyrad serve --http so it reads the current token")
	}
	return pass(NameHTTPToken, fmt.Sprintf("without a token: 401; with the token: %d (past the door; no MCP session made)", code))
}

// CheckHTTPOrigin checks that a request carrying the token but a foreign
// Origin is refused (403): a web page must not reach the daemon even if it
// somehow has the token.
func CheckHTTPOrigin(endpoint, token string) Check {
	code, _, err := knock(endpoint, token, EvilOrigin, "")
	if err != nil {
		return fail(NameHTTPOrigin, "the HTTP front door does not answer: "+err.Error(), "restart lyrad serve --http")
	}
	if code != http.StatusForbidden {
		return fail(NameHTTPOrigin, fmt.Sprintf("a request with the token and Origin: %s got %d, not 403: a web page could drive the browser", EvilOrigin, code), notLyrad)
	}
	return pass(NameHTTPOrigin, fmt.Sprintf("a request with the token and Origin: %s got 403", EvilOrigin))
}

// CheckHTTPHost checks that a request carrying the token but a foreign Host
// is refused (DNS rebinding).
func CheckHTTPHost(endpoint, token string) Check {
	code, _, err := knock(endpoint, token, "", EvilHost)
	if err != nil {
		return fail(NameHTTPHost, "the HTTP front door does not answer: "+err.Error(), "restart lyrad serve --http")
	}
	if code != http.StatusForbidden && code != http.StatusMisdirectedRequest {
		return fail(NameHTTPHost, fmt.Sprintf("a request with the token and Host: %s got %d, not 403: a DNS-rebinding page could reach the daemon", EvilHost, code), notLyrad)
	}
	return pass(NameHTTPHost, fmt.Sprintf("a request with the token and Host: %s got %d", EvilHost, code))
}
