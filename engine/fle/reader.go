package fle

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Reader opens sealed values for one principal: the plaintext when one
// of its roles holds the value's key, else null or an error as the
// field's policy says. A statement reads every encrypted property
// through one.
type Reader struct {
	cfg *Config
	// all: no principal (an embedded database, or a server without
	// authentication) holds every key.
	all   bool
	roles []string
}

// NewReader returns the reader of a principal with roles; all gives it
// every key.
func NewReader(cfg *Config, roles []string, all bool) *Reader {
	return &Reader{cfg: cfg, roles: roles, all: all}
}

// Config is the config the reader opens with.
func (r *Reader) Config() *Config { return r.cfg }

// Holds reports whether the reader may use key name.
func (r *Reader) Holds(name string) bool {
	k := r.cfg.Keys[name]
	if k == nil {
		return false
	}
	if r.all {
		return true
	}
	for _, role := range r.roles {
		if k.Rec.HasRole(role) {
			return true
		}
	}
	return false
}

// Open returns what the principal reads of v, a stored value of
// property prop: v itself unless it is sealed.
func (r *Reader) Open(prop string, v vector.Value) (vector.Value, error) {
	key, ok := SealedBy(v)
	if !ok {
		return v, nil
	}
	if r.cfg.Broken != nil {
		return nil, brokenError(r.cfg.Broken)
	}
	if !r.Holds(key) {
		if r.cfg.deniesWithError(prop, key) {
			return nil, Denied(prop, key)
		}
		return nil, nil
	}
	plain, err := r.cfg.Keys[key].Data.Open(prop, v.(string))
	if err != nil {
		return nil, errs.Data("cannot decrypt a value of property %s under key %s: the stored value does not authenticate", prop, key)
	}
	return plain, nil
}

// OpenEntity is Open for a property of a whole node or relationship
// returned in a result: a value the principal may not read is left out
// (false), whatever the field's policy, since the result cannot fail
// once it has started.
func (r *Reader) OpenEntity(prop string, v vector.Value) (vector.Value, bool) {
	out, err := r.Open(prop, v)
	if err != nil || out == nil {
		return nil, false
	}
	return out, true
}

// Seal returns the sealed form of v under deterministic key name, as a
// value of property prop: what an equality seek on an index of the field
// looks for. Null when the principal does not hold the key (it could not
// read what it would find), or an error when the field says so.
func (r *Reader) Seal(prop, name string, v vector.Value) (vector.Value, error) {
	if v == nil {
		return nil, nil
	}
	if r.cfg.Broken != nil {
		return nil, brokenError(r.cfg.Broken)
	}
	if !r.Holds(name) {
		if r.cfg.deniesWithError(prop, name) {
			return nil, Denied(prop, name)
		}
		return nil, nil
	}
	k := r.cfg.Keys[name]
	if !k.Data.Deterministic {
		return nil, nil
	}
	s, err := k.Data.Seal(prop, v)
	if err != nil {
		return nil, nil // a value that cannot be stored matches nothing stored
	}
	return s, nil
}

// Denied is the error of reading property prop sealed under key without
// a grant of it.
func Denied(prop, key string) *errs.Error {
	return errs.New(errs.CodePermission, errs.CatPermission,
		"permission denied: property %s is encrypted under key %s, which none of your roles holds", prop, key)
}
