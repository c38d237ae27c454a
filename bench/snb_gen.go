package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// SNBScale is a size of the SNB-like data set. Everything follows from
// the person count (NewSNBScale); Knows, Members and Likes are drawn as
// distinct pairs until there are exactly that many, the other
// relationship counts are one per node (IS_LOCATED_IN, HAS_MODERATOR,
// CONTAINER_OF, HAS_CREATOR, REPLY_OF) or drawn per node (HAS_INTEREST
// 1..15 per person, HAS_TAG 1..4 per post).
type SNBScale struct {
	Name                                           string
	Persons, Cities, Tags, Forums, Posts, Comments int
	Knows, Members, Likes                          int
}

// NewSNBScale is the scale of p persons: about 10 nodes and 100
// relationships per person.
func NewSNBScale(name string, p int) SNBScale {
	return SNBScale{Name: name, Persons: p,
		Cities: min(max(p/200, 20), 1000), Tags: max(p/10, 100),
		Forums: p / 2, Posts: p * 7 / 2, Comments: p * 5,
		Knows: p * 15, Members: p * 20, Likes: p * 30}
}

// SNBScales are the named sizes: XS for a quick check of the suite, S,
// and M with about 1M nodes and 10M relationships.
var SNBScales = map[string]SNBScale{
	"XS": NewSNBScale("XS", 1_000),
	"S":  NewSNBScale("S", 10_000),
	"M":  NewSNBScale("M", 100_000),
}

// NodeCount is the number of nodes of all labels.
func (s SNBScale) NodeCount() int {
	return s.Persons + s.Cities + s.Tags + s.Forums + s.Posts + s.Comments
}

// SNBPerson and the other SNB* types are the generated nodes. IDs are
// one namespace over all labels (quiver import keys relationship
// endpoints by id across every node file): Person first, then City, Tag,
// Forum, Post and Comment, each label a block of consecutive ids.
type SNBPerson struct {
	ID                          int64
	FirstName, LastName, Gender string
	BirthYear                   int64
	City                        string
}

// SNBCity is a City node.
type SNBCity struct {
	ID   int64
	Name string
}

// SNBTag is a Tag node.
type SNBTag struct {
	ID   int64
	Name string
}

// SNBForum is a Forum node.
type SNBForum struct {
	ID           int64
	Title        string
	CreationYear int64
}

// SNBPost is a Post node.
type SNBPost struct {
	ID                   int64
	CreationYear, Length int64
	Language             string
}

// SNBComment is a Comment node.
type SNBComment struct {
	ID                   int64
	CreationYear, Length int64
}

// Edge is a generated relationship; Year is its one property (KNOWS.since,
// HAS_MEMBER.joinYear, LIKES.creationYear), 0 for types without one.
type Edge struct {
	From, To, Year int64
}

// SNBGraph is a generated SNB-like social network.
type SNBGraph struct {
	Scale    SNBScale
	Persons  []SNBPerson
	Cities   []SNBCity
	Tags     []SNBTag
	Forums   []SNBForum
	Posts    []SNBPost
	Comments []SNBComment

	Knows             []Edge // Person-KNOWS->Person, one per unordered pair
	IsLocatedIn       []Edge // Person-IS_LOCATED_IN->City
	HasInterest       []Edge // Person-HAS_INTEREST->Tag
	HasMember         []Edge // Forum-HAS_MEMBER->Person
	HasModerator      []Edge // Forum-HAS_MODERATOR->Person
	ContainerOf       []Edge // Forum-CONTAINER_OF->Post
	PostHasCreator    []Edge // Post-HAS_CREATOR->Person
	CommentHasCreator []Edge // Comment-HAS_CREATOR->Person
	ReplyOfPost       []Edge // Comment-REPLY_OF->Post
	ReplyOfComment    []Edge // Comment-REPLY_OF->Comment (an earlier one)
	HasTag            []Edge // Post-HAS_TAG->Tag
	Likes             []Edge // Person-LIKES->Post
}

// Exponents of the rank weights (rank+1)^-a. Persons, forums and posts
// get Chung-Lu weights for degrees P(k) ~ k^-Gamma (a = 1/(Gamma-1)):
// hubs that know, post, like, gather members, likes and replies. Tags,
// cities and languages are Zipf-popular.
const (
	snbChungLu  = 1 / (Gamma - 1)
	snbZipf     = 1.0
	snbLastYear = 2024
)

var snbTopics = []string{"Music", "Jazz", "Rock", "Opera", "Film", "Poetry", "Novel", "Painting",
	"Football", "Tennis", "Chess", "Cycling", "Sailing", "Climbing", "Cooking", "Baking",
	"Physics", "Biology", "Chemistry", "Algebra", "Geometry", "History", "Politics", "Economics",
	"Travel", "Photography", "Gardening", "Birds", "Cats", "Dogs", "Coffee", "Wine",
	"Linux", "Databases", "Compilers", "Robots", "Space", "Volcanoes", "Oceans", "Trains"}

var snbLanguages = []string{"en", "es", "de", "fr", "pt", "zh", "ru", "it", "ja", "ar"}

// SNBTagName is the name of tag number i: a topic and a number, unique.
func SNBTagName(i int) string {
	return snbTopics[i%len(snbTopics)] + strconv.Itoa(i/len(snbTopics))
}

// GenerateSNB builds the SNB-like social network of scale s for a seed;
// the same seed gives the same graph. Relationships that must not repeat
// (KNOWS per unordered pair, HAS_MEMBER, LIKES, HAS_INTEREST, HAS_TAG)
// are drawn again when they do, and KNOWS has no self-loops.
func GenerateSNB(s SNBScale, seed uint64) *SNBGraph {
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	g := &SNBGraph{Scale: s}
	next := int64(0)
	block := func(n int) int64 { first := next; next += int64(n); return first }
	personBase, cityBase, tagBase := block(s.Persons), block(s.Cities), block(s.Tags)
	forumBase, postBase, commentBase := block(s.Forums), block(s.Posts), block(s.Comments)

	persons := newPicker(rng, s.Persons, snbChungLu, true)
	cities := newPicker(rng, s.Cities, snbZipf, false)
	tags := newPicker(rng, s.Tags, snbZipf, true)
	forums := newPicker(rng, s.Forums, snbChungLu, true)
	posts := newPicker(rng, s.Posts, snbChungLu, true)
	langs := newPicker(rng, len(snbLanguages), 1.5, false)
	year := func(from int64) int64 { return from + rng.Int64N(snbLastYear-from+1) }
	soon := func(from int64) int64 { return min(from+rng.Int64N(2), snbLastYear) }

	g.Cities = make([]SNBCity, s.Cities)
	for i := range g.Cities {
		g.Cities[i] = SNBCity{ID: cityBase + int64(i), Name: CityName(i)}
	}
	g.Tags = make([]SNBTag, s.Tags)
	for i := range g.Tags {
		g.Tags[i] = SNBTag{ID: tagBase + int64(i), Name: SNBTagName(i)}
	}
	g.Persons = make([]SNBPerson, s.Persons)
	for i := range g.Persons {
		c := cities.pick()
		id := personBase + int64(i)
		g.Persons[i] = SNBPerson{ID: id,
			FirstName: firstNames[rng.IntN(len(firstNames))], LastName: lastNames[rng.IntN(len(lastNames))],
			Gender: [2]string{"female", "male"}[rng.IntN(2)], BirthYear: 1950 + rng.Int64N(55), City: CityName(c)}
		g.IsLocatedIn = append(g.IsLocatedIn, Edge{From: id, To: cityBase + int64(c)})
		for _, t := range distinct(1+rng.IntN(15), tags) {
			g.HasInterest = append(g.HasInterest, Edge{From: id, To: tagBase + int64(t)})
		}
	}
	// Friendship is symmetric: one relationship per unordered pair, in the
	// direction it was drawn.
	g.Knows = drawPairs(s.Knows, persons, persons, true, func(a, b int) Edge {
		return Edge{From: personBase + int64(a), To: personBase + int64(b), Year: year(2005)}
	})

	g.Forums = make([]SNBForum, s.Forums)
	for i := range g.Forums {
		g.Forums[i] = SNBForum{ID: forumBase + int64(i), CreationYear: year(2005),
			Title: fmt.Sprintf("Forum %d about %s", i, SNBTagName(tags.pick()))}
		g.HasModerator = append(g.HasModerator, Edge{From: forumBase + int64(i), To: personBase + int64(persons.pick())})
	}
	g.HasMember = drawPairs(s.Members, forums, persons, false, func(f, p int) Edge {
		return Edge{From: forumBase + int64(f), To: personBase + int64(p), Year: year(g.Forums[f].CreationYear)}
	})

	g.Posts = make([]SNBPost, s.Posts)
	for i := range g.Posts {
		f := forums.pick()
		id := postBase + int64(i)
		length := int64(0) // a fifth are images, without text
		if rng.IntN(5) > 0 {
			length = 1 + min(int64(rng.ExpFloat64()*300), 1999)
		}
		g.Posts[i] = SNBPost{ID: id, CreationYear: year(g.Forums[f].CreationYear), Length: length,
			Language: snbLanguages[langs.pick()]}
		g.ContainerOf = append(g.ContainerOf, Edge{From: forumBase + int64(f), To: id})
		g.PostHasCreator = append(g.PostHasCreator, Edge{From: id, To: personBase + int64(persons.pick())})
		for _, t := range distinct(1+rng.IntN(4), tags) {
			g.HasTag = append(g.HasTag, Edge{From: id, To: tagBase + int64(t)})
		}
	}

	// Comments reply to a post (popular ones more often) or, two times in
	// five, to an earlier comment picked uniformly: reply trees, no cycles.
	g.Comments = make([]SNBComment, s.Comments)
	for i := range g.Comments {
		id := commentBase + int64(i)
		var y int64
		if i == 0 || rng.IntN(5) < 3 {
			p := posts.pick()
			y = soon(g.Posts[p].CreationYear)
			g.ReplyOfPost = append(g.ReplyOfPost, Edge{From: id, To: postBase + int64(p)})
		} else {
			c := rng.IntN(i)
			y = soon(g.Comments[c].CreationYear)
			g.ReplyOfComment = append(g.ReplyOfComment, Edge{From: id, To: commentBase + int64(c)})
		}
		g.Comments[i] = SNBComment{ID: id, CreationYear: y, Length: 1 + min(int64(rng.ExpFloat64()*80), 999)}
		g.CommentHasCreator = append(g.CommentHasCreator, Edge{From: id, To: personBase + int64(persons.pick())})
	}

	g.Likes = drawPairs(s.Likes, persons, posts, false, func(p, m int) Edge {
		return Edge{From: personBase + int64(p), To: postBase + int64(m), Year: soon(g.Posts[m].CreationYear)}
	})
	return g
}

// picker draws indexes 0..n-1 by rank weight (rank+1)^-a; with shuffle
// the ranks go to indexes through a seeded permutation, so that the
// heavy ones are scattered over the ids.
type picker struct {
	rng   *rand.Rand
	cum   []float64
	index []int32 // rank → index
}

func newPicker(rng *rand.Rand, n int, a float64, shuffle bool) *picker {
	p := &picker{rng: rng, cum: make([]float64, n), index: make([]int32, n)}
	total := 0.0
	for r := range n {
		total += math.Pow(float64(r+1), -a)
		p.cum[r] = total
		p.index[r] = int32(r)
	}
	if shuffle {
		rng.Shuffle(n, func(i, j int) { p.index[i], p.index[j] = p.index[j], p.index[i] })
	}
	return p
}

func (p *picker) pick() int {
	r := sort.SearchFloat64s(p.cum, p.rng.Float64()*p.cum[len(p.cum)-1])
	return int(p.index[min(r, len(p.cum)-1)])
}

// distinct draws k different indexes from p (k is small beside p's range).
func distinct(k int, p *picker) []int {
	k = min(k, len(p.cum))
	out := make([]int, 0, k)
	for len(out) < k {
		x := p.pick()
		dup := false
		for _, y := range out {
			dup = dup || x == y
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}

// drawPairs draws m distinct pairs (a from pa, b from pb), each turned
// into an edge by mk. With symmetric, a pair and its reverse are the same
// and a == b is refused (no self-loops). The scales leave the pairs
// sparse (at most a few percent of all possible), so redraws are few;
// a drawing that would not end is a bug of the scale.
func drawPairs(m int, pa, pb *picker, symmetric bool, mk func(a, b int) Edge) []Edge {
	out := make([]Edge, 0, m)
	seen := make(map[uint64]struct{}, m)
	for tries := 0; len(out) < m; tries++ {
		if tries > 100*m+1000 {
			panic(fmt.Sprintf("BUG: bench: %d distinct pairs do not fit the scale", m))
		}
		a, b := pa.pick(), pb.pick()
		key := uint64(a)<<32 | uint64(b)
		if symmetric {
			if a == b {
				continue
			}
			key = uint64(min(a, b))<<32 | uint64(max(a, b))
		}
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		out = append(out, mk(a, b))
	}
	return out
}
