package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// A cluster's members (docs/replication.md): a follower answers a write
// with 307 Temporary Redirect to the leader, and every answer that ran
// carries the member's bookmark in the Quiver-Bookmark header.
//
// The client follows a 307 or 308 itself, up to maxRedirects times,
// re-sending the body and every header, credentials included (the
// standard library's client drops Authorization on a redirect to another
// host, and a cluster's members are other hosts). It remembers the
// highest bookmark it was given and sends it with every request, so a
// read on any member sees the client's own earlier writes
// (read-your-writes): the member waits until it applied it. A single
// server ignores the header.

// BookmarkHeader carries bookmarks both ways.
const BookmarkHeader = "Quiver-Bookmark"

// maxRedirects bounds the redirects one request follows: a leader
// change while it is on its way may take one more.
const maxRedirects = 5

// followNoRedirects is a copy of hc that hands redirects back to the
// client (send) instead of following them.
func followNoRedirects(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// send sends req, following redirects to another member, and records
// the answer's bookmark. The final answer's Request is the request that
// got it.
func (c *HTTPClient) send(req *http.Request) (*http.Response, error) {
	if b := c.bookmark.Load(); b > 0 {
		req.Header.Set(BookmarkHeader, strconv.FormatUint(b, 10))
	}
	for i := 0; ; i++ {
		resp, err := c.hc.Do(req)
		if err != nil {
			return nil, err
		}
		c.noteBookmark(resp)
		if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect || i == maxRedirects {
			return resp, nil
		}
		loc, err := resp.Location()
		if err != nil || (req.Body != nil && req.GetBody == nil) {
			return resp, nil // nowhere to go, or a body that cannot be sent again
		}
		next := req.Clone(req.Context())
		next.URL, next.Host = loc, ""
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return resp, nil
			}
		}
		resp.Body.Close()
		req = next
	}
}

// noteBookmark keeps the highest bookmark an answer carried.
func (c *HTTPClient) noteBookmark(resp *http.Response) {
	h := resp.Header.Get(BookmarkHeader)
	if h == "" {
		return
	}
	b, err := strconv.ParseUint(strings.TrimSpace(h), 10, 64)
	if err != nil {
		return
	}
	for {
		cur := c.bookmark.Load()
		if b <= cur || c.bookmark.CompareAndSwap(cur, b) {
			return
		}
	}
}

// Bookmark is the highest bookmark the client was given: the log index
// of its latest commit on a cluster (0 before any, and on a single
// server before its first answer). Another client may send it
// (SetBookmark) to read this one's writes on any member.
func (c *HTTPClient) Bookmark() uint64 { return c.bookmark.Load() }

// SetBookmark makes the client's requests wait, on whichever member
// they reach, until it applied bookmark (or a later one the client is
// given).
func (c *HTTPClient) SetBookmark(bookmark uint64) {
	for {
		cur := c.bookmark.Load()
		if bookmark <= cur || c.bookmark.CompareAndSwap(cur, bookmark) {
			return
		}
	}
}

// baseOf is u's scheme and host: the base URL of the server at u.
func baseOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// callTx is callAt on a transaction's server.
func (c *HTTPClient) callTx(ctx context.Context, base, method, path string, body any, out any) error {
	_, err := c.callAt(ctx, base, method, path, body, out)
	return err
}
