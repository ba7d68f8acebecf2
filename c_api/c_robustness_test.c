/* Robustness of the C ABI (see c_robustness.h): runs every part's cases,
 * then checks them against the exported symbol list given as argv[1]
 * (c_api/exported_symbols.txt): an exported function without a bad-input
 * case, or a case for a function the list lacks, fails the test. */
#include <stdio.h>
#include <string.h>

#include "c_api/c_robustness.h"

/* The functions whose cases ran (string literals from COVERS). */
static const char* covered[512];
static int num_covered = 0;

void RecordCovered(const char* function) {
  for (int i = 0; i < num_covered; ++i) {
    if (strcmp(covered[i], function) == 0) return;
  }
  if (num_covered == (int)(sizeof(covered) / sizeof(covered[0]))) {
    fprintf(stderr, "RecordCovered: more than %d functions; enlarge `covered`\n", num_covered);
    ++failures;
    return;
  }
  covered[num_covered++] = function;
}

/* The index of `function` in `covered`, or -1. */
static int CoveredIndex(const char* function) {
  for (int i = 0; i < num_covered; ++i) {
    if (strcmp(covered[i], function) == 0) return i;
  }
  return -1;
}

/* Failures of the coverage check against the list at `path`, one name a line. */
static int CheckCoverage(const char* path) {
  FILE* list = fopen(path, "r");
  if (list == NULL) {
    fprintf(stderr, "cannot read the exported symbol list %s\n", path);
    return 1;
  }
  static int listed[sizeof(covered) / sizeof(covered[0])];
  int missing = 0, listed_covered = 0, num_listed = 0;
  char line[256];
  while (fgets(line, sizeof(line), list) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0') continue;
    ++num_listed;
    const int index = CoveredIndex(line);
    if (index >= 0) {
      listed[index] = 1;
      ++listed_covered;
    } else {
      fprintf(stderr, "no NULL / wrong-input case ran for exported %s\n", line);
      ++missing;
    }
  }
  fclose(list);
  /* A case for a function the list lacks: the list is behind the library. */
  int unlisted = 0;
  for (int i = 0; i < num_covered; ++i) {
    if (listed[i]) continue;
    fprintf(stderr, "%s has cases but is missing from %s\n", covered[i], path);
    ++unlisted;
  }
  if (num_listed == 0) {
    fprintf(stderr, "%s lists no functions\n", path);
    return 1;
  }
  printf("c_robustness_test: %d of %d exported functions covered\n", listed_covered, num_listed);
  return missing + unlisted;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s c_api/exported_symbols.txt\n", argv[0]);
    return 2;
  }
  int failed = StatusAndTensorCases();
  failed += OptionsCases();
  failed += DeviceCases();
  failed += DeterminismCases();
  failed += PolicyCases();
  failed += ClusterCases();
  failed += DatasetCases();
  failed += ModelCases();
  failed += SessionCases();
  failed += NullStatusCases();
  failed += failures; /* RecordCovered's own */
  failed += CheckCoverage(argv[1]);
  if (failed == 0) printf("c_robustness_test: all checks passed\n");
  return failed == 0 ? 0 : 1;
}
