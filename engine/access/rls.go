package access

// Row-level security policies (docs/row-security.md). A policy names a
// label (or a relationship type), the roles it applies to and a
// predicate over one element: the node is always n, the relationship
// always r, and $user is the principal as a map {name, roles, …its
// attributes}. For a principal whose roles meet a policy's, an element
// with that label is visible only when one of the label's applicable
// predicates is true. Admins and statements without a principal are not
// restricted.
//
// Policies are kept in the system records under PolicyPrefix, one JSON
// record each, so that they are logged, checkpointed and replicated as
// users are.

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// PolicyPrefix is the system records' key prefix of the policies.
const PolicyPrefix = "rls/policy/"

// PolicyKey is the system record key of the policy named name. Names
// hold no /, so the key is the only one starting with itself, and
// SystemPutIfAbsent over it creates the policy exactly once.
func PolicyKey(name string) string { return PolicyPrefix + name + "/" }

// Policy is one row-level security policy.
type Policy struct {
	Name      string   `json:"name"`
	Label     string   `json:"label,omitempty"` // a node label, or
	Type      string   `json:"type,omitempty"`  // a relationship type
	Roles     []string `json:"roles"`
	Predicate string   `json:"predicate"`
}

// Rel reports whether p is a policy on a relationship type.
func (p *Policy) Rel() bool { return p.Type != "" }

// Element is the variable p's predicate names its element by.
func (p *Policy) Element() string {
	if p.Rel() {
		return "r"
	}
	return "n"
}

// Target is the label or type, as written in a pattern: :L or [:T].
func (p *Policy) Target() string {
	if p.Rel() {
		return "[:" + p.Type + "]"
	}
	return ":" + p.Label
}

// EncodePolicy is p's system record value.
func EncodePolicy(p *Policy) []byte {
	v, err := json.Marshal(p)
	if err != nil {
		panic("BUG: a policy does not encode: " + err.Error())
	}
	return v
}

// DecodePolicy reads a policy's system record value.
func DecodePolicy(v []byte) (*Policy, error) {
	var p Policy
	if err := json.Unmarshal(v, &p); err != nil {
		return nil, fmt.Errorf("access: corrupt policy record: %w", err)
	}
	return &p, nil
}

// Limits of a policy.
const (
	maxPolicyName      = 64
	maxPredicateLength = 4096
)

// CheckPolicy validates a new policy whole: its name, target, roles and
// predicate (parsed, restricted to what a policy may use, and
// type-checked). A bad one is a 22023 (invalid parameter) or, for the
// predicate, a 42xxx error with the position in the predicate text.
func CheckPolicy(p *Policy) error {
	if p.Name == "" || len(p.Name) > maxPolicyName || strings.ContainsAny(p.Name, "/\x00") {
		return errs.DataCode(errs.CodeInvalidParam, "a policy name has 1 to %d characters and no /", maxPolicyName)
	}
	if (p.Label == "") == (p.Type == "") {
		return errs.DataCode(errs.CodeInvalidParam, "policy %q: give exactly one of label and type", p.Name)
	}
	if len(p.Roles) == 0 {
		return errs.DataCode(errs.CodeInvalidParam, "policy %q: roles lists at least one role", p.Name)
	}
	for _, r := range p.Roles {
		if !RoleName(r) {
			return errs.DataCode(errs.CodeInvalidParam, "policy %q: invalid role %q: a built-in role (admin, editor, reader) or one of your own naming, a letter then letters, digits or underscores", p.Name, r)
		}
	}
	if len(p.Predicate) > maxPredicateLength {
		return errs.DataCode(errs.CodeInvalidParam, "policy %q: the predicate has at most %d bytes", p.Name, maxPredicateLength)
	}
	_, err := bindPolicy(p, map[string]vector.Value{"name": "", "roles": []vector.Value{}})
	return err
}

// bindPolicy parses, checks and binds p's predicate for a user.
func bindPolicy(p *Policy, user map[string]vector.Value) (plan.Expr, error) {
	where := func(err error) error {
		if e, ok := errs.As(err); ok {
			out := *e
			out.Message = fmt.Sprintf("invalid predicate of policy %q: %s", p.Name, e.Message)
			return &out
		}
		return err
	}
	if strings.TrimSpace(p.Predicate) == "" {
		return nil, errs.Syntax("invalid predicate of policy %q: it is empty", p.Name)
	}
	e, err := gql.ParseExpr(p.Predicate)
	if err != nil {
		return nil, where(err)
	}
	if err := checkPredicate(e, p.Element()); err != nil {
		return nil, where(err)
	}
	x, err := plan.BindElementPredicate(e, p.Element(), p.Rel(), user)
	if err != nil {
		return nil, where(err)
	}
	if t := x.Type(); t != vector.Bool && t != vector.Any && t != vector.Null {
		return nil, where(errs.Semantic("the predicate is a %s, not a BOOLEAN", t).At(e.Position().Line, e.Position().Column))
	}
	return x, nil
}

// deterministic are the functions a predicate may call: pure functions of
// their arguments. Anything reading the clock, randomness, the graph
// beyond the element, or a procedure is refused.
var deterministic = map[string]bool{
	"tolower": true, "toupper": true, "lower": true, "upper": true, "trim": true, "ltrim": true, "rtrim": true,
	"coalesce": true, "size": true, "tostring": true, "tointeger": true, "tofloat": true, "toboolean": true,
	"abs": true, "labels": true, "type": true, "id": true, "keys": true, "substring": true, "left": true,
	"right": true, "replace": true, "head": true, "last": true, "length": true, "char_length": true,
}

// checkPredicate refuses what a policy predicate may not contain:
// variables other than the element, parameters other than $user,
// subqueries and patterns, aggregates, and non-deterministic functions.
func checkPredicate(e gql.Expr, elem string) error {
	var bad error
	fail := func(p gql.Pos, format string, args ...any) {
		if bad == nil {
			bad = errs.Semantic(format, args...).At(p.Line, p.Column)
		}
	}
	var walk func(e gql.Expr)
	walk = func(e gql.Expr) {
		if e == nil || bad != nil {
			return
		}
		switch x := e.(type) {
		case *gql.Literal:
		case *gql.Param:
			if x.Name != "user" {
				fail(x.Pos, "a policy predicate may use the parameter $user only, not $%s", x.Name)
			}
		case *gql.Variable:
			if x.Name != elem {
				fail(x.Pos, "a policy predicate names its element %s; %s is not defined", elem, x.Name)
			}
		case *gql.PropertyAccess:
			walk(x.X)
		case *gql.LabelTest:
			walk(x.X)
		case *gql.IsNull:
			walk(x.X)
		case *gql.Unary:
			walk(x.X)
		case *gql.Binary:
			walk(x.L)
			walk(x.R)
		case *gql.Comparison:
			for _, o := range x.Operands {
				walk(o)
			}
		case *gql.ListLit:
			for _, o := range x.Elems {
				walk(o)
			}
		case *gql.MapLit:
			for _, o := range x.Values {
				walk(o)
			}
		case *gql.Index:
			walk(x.X)
			walk(x.I)
		case *gql.Case:
			walk(x.Subject)
			for i := range x.Whens {
				walk(x.Whens[i])
				walk(x.Thens[i])
			}
			walk(x.Else)
		case *gql.FuncCall:
			if len(x.Namespace) > 0 || !deterministic[strings.ToLower(x.Name)] || x.Star || x.Distinct {
				fail(x.Pos, "a policy predicate cannot call %s(): only deterministic scalar functions are allowed", x.Name)
				return
			}
			for _, a := range x.Args {
				walk(a)
			}
		default:
			fail(e.Position(), "a policy predicate cannot use this expression: only the element's properties and labels, $user, literals, operators and deterministic functions")
		}
	}
	walk(e)
	return bad
}

// UserValue is $user for p: its attributes, with name and roles, which
// an attribute cannot override.
func UserValue(p *Principal) map[string]vector.Value {
	m := make(map[string]vector.Value, len(p.Attributes)+2)
	for k, v := range p.Attributes {
		m[k] = v
	}
	roles := make([]vector.Value, len(p.Roles))
	for i, r := range p.Roles {
		roles[i] = r
	}
	m["name"], m["roles"] = p.Name, roles
	return m
}

// Restricted reports whether row-level security may apply to ctx's
// principal: there is one, and it is not an admin.
func Restricted(p *Principal) bool {
	return p != nil && !p.Privileges.Has(PrivAdmin)
}

// Applies reports whether pol applies to a principal with roles.
func (pol *Policy) Applies(roles []string) bool {
	for _, r := range pol.Roles {
		if slices.Contains(roles, r) {
			return true
		}
	}
	return false
}

// SecurityFor binds the policies applying to p into the statement's
// row-level security; nil when none applies (or p is unrestricted).
func SecurityFor(p *Principal, policies []*Policy) (*plan.Security, error) {
	if !Restricted(p) {
		return nil, nil
	}
	var sec *plan.Security
	var user map[string]vector.Value
	for _, pol := range policies {
		if !pol.Applies(p.Roles) {
			continue
		}
		if sec == nil {
			sec = &plan.Security{Nodes: map[string][]plan.Expr{}, Rels: map[string][]plan.Expr{}}
			user = UserValue(p)
		}
		x, err := bindPolicy(pol, user)
		if err != nil {
			return nil, err
		}
		if pol.Rel() {
			sec.Rels[pol.Type] = append(sec.Rels[pol.Type], x)
		} else {
			sec.Nodes[pol.Label] = append(sec.Nodes[pol.Label], x)
		}
	}
	return sec, nil
}

// SortPolicies orders policies by name.
func SortPolicies(ps []*Policy) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
}

// RoleName reports whether r can name a role: a built-in one, or one of
// the operator's own naming (a letter, then letters, digits or
// underscores, at most 64), which grants on graphs give privileges to
// (docs/graphs.md).
func RoleName(r string) bool {
	ok := len(r) > 0 && len(r) <= 64 && (r[0] >= 'a' && r[0] <= 'z' || r[0] >= 'A' && r[0] <= 'Z')
	for i := 0; ok && i < len(r); i++ {
		c := r[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	return ok
}
