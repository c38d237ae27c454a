package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// User attributes (dbms.security.setUserAttribute): named scalars or
// lists of scalars kept in the user's record, carried by the principal
// of every statement the user runs, and read by row-level security
// predicates as $user.key (docs/row-security.md). They are stored with
// the user, so they are as durable and replicated as the user is.

// Limits of the attributes.
const (
	maxAttrs     = 64
	maxAttrKey   = 64
	maxAttrList  = 1000
	maxAttrBytes = 4096 // a string value, or a list's encoding
)

// attrValue is one attribute as stored: a value tagged with its type,
// since JSON numbers alone lose whether they were integers.
type attrValue struct {
	I *int64      `json:"i,omitempty"`
	F *float64    `json:"f,omitempty"`
	S *string     `json:"s,omitempty"`
	B *bool       `json:"b,omitempty"`
	L []attrValue `json:"l,omitempty"`
	// IsList tells an empty list from the absence of a list.
	IsList bool `json:"list,omitempty"`
}

// encodeAttr tags v; it fails for a value an attribute cannot hold.
func encodeAttr(v vector.Value, nested bool) (attrValue, error) {
	switch x := v.(type) {
	case int64:
		return attrValue{I: &x}, nil
	case float64:
		return attrValue{F: &x}, nil
	case string:
		if len(x) > maxAttrBytes {
			return attrValue{}, invalidParam("an attribute's string has at most %d bytes", maxAttrBytes)
		}
		return attrValue{S: &x}, nil
	case bool:
		return attrValue{B: &x}, nil
	case []vector.Value:
		if nested {
			return attrValue{}, invalidParam("an attribute's list holds scalars, not lists")
		}
		if len(x) > maxAttrList {
			return attrValue{}, invalidParam("an attribute's list has at most %d elements", maxAttrList)
		}
		out := attrValue{IsList: true, L: make([]attrValue, 0, len(x))}
		for _, e := range x {
			a, err := encodeAttr(e, true)
			if err != nil {
				return attrValue{}, err
			}
			out.L = append(out.L, a)
		}
		return out, nil
	}
	return attrValue{}, invalidParam("an attribute is a string, integer, float, boolean or a list of those")
}

// value is the attribute as a query value.
func (a attrValue) value() vector.Value {
	switch {
	case a.I != nil:
		return *a.I
	case a.F != nil:
		return *a.F
	case a.S != nil:
		return *a.S
	case a.B != nil:
		return *a.B
	case a.IsList:
		out := make([]vector.Value, len(a.L))
		for i, e := range a.L {
			out[i] = e.value()
		}
		return out
	}
	return nil
}

// attributes are u's attributes as query values (nil when none).
func (u *userRecord) attributes() map[string]vector.Value {
	if len(u.Attrs) == 0 {
		return nil
	}
	out := make(map[string]vector.Value, len(u.Attrs))
	for k, a := range u.Attrs {
		out[k] = a.value()
	}
	return out
}

// checkAttrKey accepts an identifier of 1..64 characters other than the
// keys $user always has (name, roles).
func checkAttrKey(k string) error {
	if k == "" || len(k) > maxAttrKey {
		return invalidParam("an attribute name has 1 to %d characters", maxAttrKey)
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return invalidParam("an attribute name is an identifier: letters, digits and _, not starting with a digit")
		}
	}
	if k == "name" || k == "roles" {
		return invalidParam("the attribute %q is the user's own and cannot be set", k)
	}
	return nil
}

// setAttribute sets (or, with a nil value, removes) an attribute of the
// user named name.
func (s *Service) setAttribute(ctx context.Context, name, key string, v vector.Value) error {
	if err := checkAttrKey(key); err != nil {
		return err
	}
	var a attrValue
	if v != nil {
		var err error
		if a, err = encodeAttr(v, false); err != nil {
			return err
		}
		if b, _ := json.Marshal(a); len(b) > maxAttrBytes*4 {
			return invalidParam("the attribute's value is too large")
		}
	}
	s.write.Lock()
	defer s.write.Unlock()
	old := s.user(name)
	if old == nil {
		return errNoUser(name)
	}
	u := *old
	u.Attrs = maps.Clone(old.Attrs)
	if v == nil {
		delete(u.Attrs, key)
	} else {
		if u.Attrs == nil {
			u.Attrs = map[string]attrValue{}
		}
		u.Attrs[key] = a
		if len(u.Attrs) > maxAttrs {
			return invalidParam("a user has at most %d attributes", maxAttrs)
		}
	}
	var b batch
	b.putUser(&u)
	if err := s.commitLocked(ctx, &b); err != nil {
		return internal(err)
	}
	return nil
}

// procUserAttributes lists a user's attributes, by name.
func (s *Service) procUserAttributes(_ context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
	name := a[0].(string)
	u := s.user(name)
	if u == nil {
		return nil, errNoUser(name)
	}
	keys := make([]string, 0, len(u.Attrs))
	for k := range u.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]vector.Value, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, []vector.Value{k, u.Attrs[k].value()})
	}
	return rows, nil
}

// describeAttr names an attribute change for the audit trail: the key
// only, never the value (it may be personal data).
func describeAttr(args []vector.Value) string {
	if len(args) < 2 {
		return ""
	}
	k, _ := args[1].(string)
	if len(k) > maxAttrKey {
		k = k[:maxAttrKey] + "…"
	}
	return fmt.Sprintf(" key %s", sanitize(k))
}
