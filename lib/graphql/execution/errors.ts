import type { GraphQLError, GraphQLResolveInfo } from "graphql";

export type Path = GraphQLResolveInfo["path"];

export function pathToArray(path: Path | undefined): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let at = path; at; at = at.prev) keys.push(at.key);
  return keys.reverse();
}

/**
 * The errors of one execution, as graphql-js 16 keeps them: an error is dropped when its position,
 * or one above it, was already nulled by an earlier error (a sibling still resolving when its
 * parent was nulled); a position of `undefined` is the whole result.
 */
export class CollectedErrors {
  readonly errors: GraphQLError[] = [];
  private readonly nulled = new Set<Path | undefined>();

  add(error: GraphQLError, path: Path | undefined): void {
    if (this.isNulled(path)) return;
    this.nulled.add(path);
    this.errors.push(error);
  }

  private isNulled(path: Path | undefined): boolean {
    if (this.nulled.size === 0) return false;
    for (let at = path; at; at = at.prev) if (this.nulled.has(at)) return true;
    return this.nulled.has(undefined);
  }
}
