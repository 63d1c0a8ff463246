package azure

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// wireReply is an answer ready to be written.
type wireReply struct {
	status  int
	body    any
	headers map[string]string
}

func writeReply(w http.ResponseWriter, reply *wireReply) {
	for k, v := range reply.headers {
		w.Header().Set(k, v)
	}
	if reply.body == nil {
		w.WriteHeader(reply.status)
		return
	}
	writeJSON(w, reply.status, reply.body)
}

// writeError writes ARM's error envelope.
func writeError(w http.ResponseWriter, err *Error) {
	if err.RetryAfter > 0 {
		w.Header().Set("Retry-After", itoa(int(ceilSeconds(err.RetryAfter))))
	}
	writeJSON(w, err.Status, map[string]*Error{"error": err})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// render builds a resource's wire form: the envelope every type shares,
// properties with provisioningState, and the type's own adjustments.
func (c *Cloud) render(r *Resource) map[string]any {
	spec := lookupType(r.Type)
	m := map[string]any{"id": r.ID.String(), "name": r.Name(), "type": r.Type}
	if r.Location != "" {
		m["location"] = r.Location
	}
	if r.Tags != nil {
		m["tags"] = r.Tags
	}
	if r.ETag != "" {
		m["etag"] = r.ETag
	}
	props := toMap(r.Properties)
	if spec == nil || !spec.NoProvisioningState {
		props["provisioningState"] = r.ProvisioningState
	}
	m["properties"] = props
	if spec != nil && spec.Render != nil {
		spec.Render(r, m)
	}
	return m
}

// toMap turns a properties struct into a JSON object, keeping numbers exact.
func toMap(v any) map[string]any {
	out := map[string]any{}
	if v == nil {
		return out
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&out)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// newGUID returns a random RFC 4122 version 4 GUID, the shape of every
// Azure ID that is not a name.
func newGUID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// NewGUID is newGUID for resource helpers (resource GUIDs, connection IDs).
func NewGUID() string { return newGUID() }

func newETag(spec *TypeSpec) string {
	if spec != nil && spec.PlainETag {
		return newGUID()
	}
	return `W/"` + newGUID() + `"`
}

func itoa(n int) string { return strconv.Itoa(n) }

func ceilSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}
