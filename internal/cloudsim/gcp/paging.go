package gcp

import (
	"encoding/base64"
	"strconv"
)

// page filters items by the request's filter and answers one page of them
// as Compute Engine lists do: {"kind", "items", "nextPageToken"}, at most
// maxResults (default and cap 500) per page. A pageToken is opaque to
// clients; here it is the next item's position.
func (x *call) page(kind string, items []any) (any, *Error) {
	return x.pageAs(kind, "items", items)
}

// pageAs is page with the items under another field name (Cloud DNS lists
// answer "managedZones", "rrsets", "changes").
func (x *call) pageAs(kind, field string, items []any) (any, *Error) {
	q := x.r.URL.Query()
	matching, err := filterItems(q.Get("filter"), items)
	if err != nil {
		return nil, err
	}
	size := x.c.PageSize
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, errInvalid("Invalid value for field 'maxResults': '%s'. Must be a non-negative integer.", v)
		}
		if n > 0 && n < size {
			size = n
		}
	}
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		n, convErr := strconv.Atoi(string(raw))
		if err != nil || convErr != nil || n < 0 || n > len(matching) {
			return nil, errInvalid("Invalid value for field 'pageToken': '%s'.", tok)
		}
		start = n
	}
	end := min(start+size, len(matching))
	out := map[string]any{"kind": kind, field: matching[start:end]}
	if field == "items" {
		out["id"] = x.resourceName()
		out["selfLink"] = x.base + x.r.URL.Path
	}
	if end < len(matching) {
		out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return out, nil
}

// iamPage answers one page of items under field as IAM's admin API lists
// do: at most pageSize items (def when unset, at most most), and a
// nextPageToken while more follow. A pageToken is opaque to clients; here
// it is the next item's position.
func (x *call) iamPage(field string, items []any, def, most int) (any, *Error) {
	q := x.r.URL.Query()
	size := def
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, errInvalid("Invalid value for field 'pageSize': '%s'. Must be a non-negative integer.", v)
		}
		if n > 0 {
			size = min(n, most)
		}
	}
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		n, convErr := strconv.Atoi(string(raw))
		if err != nil || convErr != nil || n < 0 || n > len(items) {
			return nil, errInvalid("Invalid value for field 'pageToken': '%s'.", tok)
		}
		start = n
	}
	end := min(start+size, len(items))
	out := map[string]any{field: items[start:end]}
	if end < len(items) {
		out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return out, nil
}
