// pagerank: a same-run reference for Quiver's PageRank benchmark (make
// bench-algo). It implements the pull PageRank kernel the GAP Benchmark
// Suite describes (Beamer, Asanović, Patterson, "The GAP Benchmark Suite",
// arXiv:1508.03619, section on PageRank): float scores, each vertex's
// contribution score/out-degree computed once per iteration, then every
// vertex sums its in-neighbours' contributions, in parallel with OpenMP
// (dynamic schedule over chunks of 16384 vertices), for a fixed number of
// iterations. Written here from that description, so the harness can time
// a compiled kernel on the same graph, machine and minute as Quiver.
//
// The graph is bench/data/kron<scale>-<seed>/edges.csv (a header line, then
// from,to,weight per line), read undirected: each edge is one arc each way,
// parallel edges kept, as Quiver's projection reads it. Neighbour lists are
// sorted by vertex id, as GAP's builder leaves them; vertex ids stay the
// generator's (no reordering).
//
// Protocol: after loading it prints "ready <vertices> <arcs>" on stdout, then
// for every line "run" on stdin it runs the kernel and prints
// "time <seconds> <sum of squared scores> <largest score>"; "run hub" does the same over the graph
// renumbered by decreasing degree, as Quiver's projections number it (the
// kernel is the same; only the numbering, and so the cache, differ). It
// exits at end of input.
//
// Build: g++ -O3 -march=native -fopenmp -o pagerank pagerank.cc
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <omp.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

typedef uint32_t NodeID;
typedef float ScoreT;
static const float kDamp = 0.85f;

struct CSR {
  int64_t n = 0;
  std::vector<int64_t> off;
  std::vector<NodeID> nbr;
};

static bool parse_u64(const char *&p, const char *end, uint64_t &v) {
  v = 0;
  const char *s = p;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + uint64_t(*p++ - '0');
  return p > s;
}

static void skip_line(const char *&p, const char *end) {
  while (p < end && *p != '\n') p++;
  if (p < end) p++;
}

static void sort_lists(CSR &g) {
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t v = 0; v < g.n; v++) std::sort(g.nbr.begin() + g.off[v], g.nbr.begin() + g.off[v + 1]);
}

static CSR load(const char *path, int64_t n) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); exit(1); }
  struct stat st;
  fstat(fd, &st);
  size_t size = st.st_size;
  const char *data = (const char *)mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) { perror("mmap"); exit(1); }
  madvise((void *)data, size, MADV_SEQUENTIAL);
  const char *end = data + size, *p = data;
  skip_line(p, end);  // header
  std::vector<std::pair<NodeID, NodeID>> edges;
  edges.reserve(size / 20);
  while (p < end) {
    uint64_t a, b;
    if (!parse_u64(p, end, a) || p >= end || *p != ',') { skip_line(p, end); continue; }
    p++;
    if (!parse_u64(p, end, b)) { skip_line(p, end); continue; }
    skip_line(p, end);
    if (a >= uint64_t(n) || b >= uint64_t(n)) { fprintf(stderr, "vertex out of range\n"); exit(1); }
    edges.emplace_back(NodeID(a), NodeID(b));
  }
  munmap((void *)data, size);
  close(fd);
  CSR g;
  g.n = n;
  g.off.assign(n + 1, 0);
  for (auto &e : edges) { g.off[e.first + 1]++; g.off[e.second + 1]++; }
  for (int64_t v = 0; v < n; v++) g.off[v + 1] += g.off[v];
  g.nbr.resize(g.off[n]);
  std::vector<int64_t> pos(g.off.begin(), g.off.end() - 1);
  for (auto &e : edges) { g.nbr[pos[e.first]++] = e.second; g.nbr[pos[e.second]++] = e.first; }
  std::vector<std::pair<NodeID, NodeID>>().swap(edges);
  sort_lists(g);
  return g;
}

// hub_order renumbers g's vertices by decreasing degree, ties by id (the
// numbering Quiver's projections use), and sorts the lists again.
static CSR hub_order(const CSR &g) {
  const int64_t n = g.n;
  std::vector<NodeID> order(n), rank(n);
  for (int64_t v = 0; v < n; v++) order[v] = NodeID(v);
  std::stable_sort(order.begin(), order.end(), [&](NodeID a, NodeID b) {
    return g.off[a + 1] - g.off[a] > g.off[b + 1] - g.off[b];
  });
  for (int64_t i = 0; i < n; i++) rank[order[i]] = NodeID(i);
  CSR h;
  h.n = n;
  h.off.assign(n + 1, 0);
  for (int64_t i = 0; i < n; i++) h.off[i + 1] = h.off[i] + (g.off[order[i] + 1] - g.off[order[i]]);
  h.nbr.resize(g.nbr.size());
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    int64_t o = h.off[i];
    for (int64_t j = g.off[order[i]]; j < g.off[order[i] + 1]; j++) h.nbr[o++] = rank[g.nbr[j]];
  }
  sort_lists(h);
  return h;
}

// pagerank runs iters pull iterations (GAP's PageRankPull with its
// tolerance at 0, so every iteration runs). One addition to GAP's kernel:
// the sink mass (the scores of vertices without edges, spread over all
// vertices, as Graphalytics defines PageRank and Quiver computes it), a
// sum over the vertices in the contribution pass that the edge loop does
// not see. With it both programs compute the same scores, which the
// harness checks.
static std::vector<ScoreT> pagerank(const CSR &g, int iters) {
  const int64_t n = g.n;
  const ScoreT init = 1.0f / n, base = (1.0f - kDamp) / n;
  std::vector<ScoreT> scores(n, init), contrib(n, 0);
  for (int it = 0; it < iters; it++) {
    double error = 0, sink = 0;
#pragma omp parallel for reduction(+ : sink)
    for (int64_t v = 0; v < n; v++) {
      int64_t d = g.off[v + 1] - g.off[v];
      contrib[v] = d ? scores[v] / d : 0;
      if (!d) sink += scores[v];
    }
    const ScoreT b = base + kDamp * ScoreT(sink) / n;
#pragma omp parallel for reduction(+ : error) schedule(dynamic, 16384)
    for (int64_t u = 0; u < n; u++) {
      ScoreT total = 0;
      for (int64_t i = g.off[u]; i < g.off[u + 1]; i++) total += contrib[g.nbr[i]];
      ScoreT old = scores[u];
      scores[u] = b + kDamp * total;
      error += std::fabs(scores[u] - old);
    }
    (void)error;
  }
  return scores;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: pagerank EDGES.csv VERTICES ITERATIONS\n");
    return 2;
  }
  int64_t n = atoll(argv[2]);
  int iters = atoi(argv[3]);
  CSR g = load(argv[1], n);
  CSR h = hub_order(g);
  printf("ready %lld %lld\n", (long long)n, (long long)g.nbr.size());
  fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
    const CSR *which = line == "run" ? &g : line == "run hub" ? &h : nullptr;
    if (!which) { printf("error unknown command\n"); fflush(stdout); continue; }
    double t0 = omp_get_wtime();
    std::vector<ScoreT> s = pagerank(*which, iters);
    double t = omp_get_wtime() - t0;
    double squares = 0, top = 0;
    for (ScoreT x : s) {
      squares += double(x) * x;
      top = std::max(top, double(x));
    }
    printf("time %.6f %.9e %.9e\n", t, squares, top);
    fflush(stdout);
  }
  return 0;
}
