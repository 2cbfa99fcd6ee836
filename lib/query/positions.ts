import type { Expression, OrderBy } from "./ast.ts";

/**
 * Source columns of parsed nodes, kept outside the nodes so the tree stays plain data that
 * compares equal whether it was parsed or built by hand.
 */
const columns = new WeakMap<Expression | OrderBy, number>();

export function setColumn<T extends Expression | OrderBy>(node: T, column: number): T {
  columns.set(node, column);
  return node;
}

/** The 1-based column where a parsed node's field starts; undefined for hand-built nodes. */
export function columnOf(node: Expression | OrderBy): number | undefined {
  return columns.get(node);
}

/** " at column N" when the node came from text, else nothing. */
export function atColumn(node: Expression | OrderBy): string {
  const column = columnOf(node);
  return column === undefined ? "" : ` at column ${column}`;
}
