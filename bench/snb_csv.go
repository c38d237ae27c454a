package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// SNBDataset is the SNB-like social network of GenerateSNB: six labels
// and ten relationship types in one file per label and per (type, source
// label, target label), named as LDBC SNB's CSVs are.
var SNBDataset = &Dataset{
	Name:  "snb",
	Title: "SNB-like social network",
	Nodes: []Table{
		{Name: "Person", File: "person.csv", Cols: []Column{{"firstName", "STRING"}, {"lastName", "STRING"}, {"gender", "STRING"}, {"birthYear", "INT64"}, {"city", "STRING"}}},
		{Name: "City", File: "city.csv", Cols: []Column{{"name", "STRING"}}},
		{Name: "Tag", File: "tag.csv", Cols: []Column{{"name", "STRING"}}},
		{Name: "Forum", File: "forum.csv", Cols: []Column{{"title", "STRING"}, {"creationYear", "INT64"}}},
		{Name: "Post", File: "post.csv", Cols: []Column{{"creationYear", "INT64"}, {"length", "INT64"}, {"language", "STRING"}}},
		{Name: "Comment", File: "comment.csv", Cols: []Column{{"creationYear", "INT64"}, {"length", "INT64"}}},
	},
	Rels: []Table{
		{Name: "KNOWS", File: "person_knows_person.csv", From: "Person", To: "Person", Cols: []Column{{"since", "INT64"}}},
		{Name: "IS_LOCATED_IN", File: "person_isLocatedIn_city.csv", From: "Person", To: "City"},
		{Name: "HAS_INTEREST", File: "person_hasInterest_tag.csv", From: "Person", To: "Tag"},
		{Name: "HAS_MEMBER", File: "forum_hasMember_person.csv", From: "Forum", To: "Person", Cols: []Column{{"joinYear", "INT64"}}},
		{Name: "HAS_MODERATOR", File: "forum_hasModerator_person.csv", From: "Forum", To: "Person"},
		{Name: "CONTAINER_OF", File: "forum_containerOf_post.csv", From: "Forum", To: "Post"},
		{Name: "HAS_CREATOR", File: "post_hasCreator_person.csv", From: "Post", To: "Person"},
		{Name: "HAS_CREATOR", File: "comment_hasCreator_person.csv", From: "Comment", To: "Person"},
		{Name: "REPLY_OF", File: "comment_replyOf_post.csv", From: "Comment", To: "Post"},
		{Name: "REPLY_OF", File: "comment_replyOf_comment.csv", From: "Comment", To: "Comment"},
		{Name: "HAS_TAG", File: "post_hasTag_tag.csv", From: "Post", To: "Tag"},
		{Name: "LIKES", File: "person_likes_post.csv", From: "Person", To: "Post", Cols: []Column{{"creationYear", "INT64"}}},
	},
	Suite: SNBSuite,
}

// SNBLastFile is the file WriteCSV writes last: its presence says a
// generation finished (make bench-snb).
const SNBLastFile = "person_likes_post.csv"

// Edges are the relationships of the data set's relationship file of
// that index in SNBDataset.Rels.
func (g *SNBGraph) Edges() [][]Edge {
	return [][]Edge{g.Knows, g.IsLocatedIn, g.HasInterest, g.HasMember, g.HasModerator, g.ContainerOf,
		g.PostHasCreator, g.CommentHasCreator, g.ReplyOfPost, g.ReplyOfComment, g.HasTag, g.Likes}
}

// WriteCSV writes the data set's files into dir, each with its typed
// header (Table.Header). No value needs quoting: names, titles and tags
// have no commas or quotes.
func (g *SNBGraph) WriteCSV(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	num := strconv.AppendInt
	nodes := []struct {
		n   int
		row func(b []byte, i int) []byte
	}{
		{len(g.Persons), func(b []byte, i int) []byte {
			p := &g.Persons[i]
			b = append(num(b, p.ID, 10), ',')
			b = append(append(append(append(b, p.FirstName...), ','), p.LastName...), ',')
			b = append(append(b, p.Gender...), ',')
			b = append(num(b, p.BirthYear, 10), ',')
			return append(b, p.City...)
		}},
		{len(g.Cities), func(b []byte, i int) []byte {
			return append(append(num(b, g.Cities[i].ID, 10), ','), g.Cities[i].Name...)
		}},
		{len(g.Tags), func(b []byte, i int) []byte { return append(append(num(b, g.Tags[i].ID, 10), ','), g.Tags[i].Name...) }},
		{len(g.Forums), func(b []byte, i int) []byte {
			f := &g.Forums[i]
			b = append(append(append(num(b, f.ID, 10), ','), f.Title...), ',')
			return num(b, f.CreationYear, 10)
		}},
		{len(g.Posts), func(b []byte, i int) []byte {
			p := &g.Posts[i]
			b = append(num(b, p.ID, 10), ',')
			b = append(num(b, p.CreationYear, 10), ',')
			b = append(num(b, p.Length, 10), ',')
			return append(b, p.Language...)
		}},
		{len(g.Comments), func(b []byte, i int) []byte {
			c := &g.Comments[i]
			b = append(num(b, c.ID, 10), ',')
			b = append(num(b, c.CreationYear, 10), ',')
			return num(b, c.Length, 10)
		}},
	}
	if len(nodes) != len(SNBDataset.Nodes) {
		panic("BUG: bench: SNB node files and writers differ")
	}
	for i, t := range SNBDataset.Nodes {
		if err := writeTable(dir, t, nodes[i].n, nodes[i].row); err != nil {
			return err
		}
	}
	edges := g.Edges()
	if len(edges) != len(SNBDataset.Rels) {
		panic("BUG: bench: SNB relationship files and edge lists differ")
	}
	for i, t := range SNBDataset.Rels {
		es, year := edges[i], len(t.Cols) > 0
		err := writeTable(dir, t, len(es), func(b []byte, j int) []byte {
			b = append(num(b, es[j].From, 10), ',')
			b = num(b, es[j].To, 10)
			if year {
				b = num(append(b, ','), es[j].Year, 10)
			}
			return b
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeTable writes t's header and n rows into dir.
func writeTable(dir string, t Table, n int, row func(b []byte, i int) []byte) error {
	path := filepath.Join(dir, t.File)
	err := writeFile(path, func(w *bufio.Writer) {
		w.WriteString(t.Header() + "\n")
		var buf []byte
		for i := range n {
			buf = append(row(buf[:0], i), '\n')
			w.Write(buf)
		}
	})
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
