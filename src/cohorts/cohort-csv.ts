/**
 * The ids of a static cohort's CSV upload, read as PostHog's CohortSerializer._calculate_static_by_csv reads them:
 * the text split into lines (`str.splitlines`), each line a row of Python's `csv.reader` (excel dialect), and the first
 * column of every non-empty row taken as a distinct id. A header row is no special case: its first cell is an id no
 * person has, so it matches nothing (test_cohort.py test_insert_by_distinct_id_or_email: "a header or something").
 */

/** Python's `str.splitlines` line boundaries. */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** The first cell of each non-empty row, in order (duplicates kept: the caller dedupes). */
export function csvFirstColumn(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(LINE_BREAK)) {
    if (line === '') continue; // csv.reader yields [] for an empty line: `if len(row) > 0` skips it
    out.push(firstCell(line));
  }
  return out;
}

/**
 * The first cell of one line as the excel dialect reads it: a quoted cell ends at its closing quote (`""` is a quote)
 * and any text after that quote, up to the comma, is kept (csv's non-strict mode); an unquoted cell ends at a comma.
 */
function firstCell(line: string): string {
  if (!line.startsWith('"')) {
    const comma = line.indexOf(',');
    return comma < 0 ? line : line.slice(0, comma);
  }
  let cell = '';
  let i = 1;
  for (; i < line.length; i++) {
    if (line[i] !== '"') cell += line[i];
    else if (line[i + 1] === '"') cell += line[i++];
    else break;
  }
  const comma = line.indexOf(',', i + 1);
  return cell + line.slice(i + 1, comma < 0 ? undefined : comma);
}
