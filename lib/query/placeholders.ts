import { fieldSegments, type Value } from "./ast.ts";

/**
 * Whether DynamoDB accepts the value in an expression. Its numbers span 1E-130 to about 1E+126 in
 * magnitude and it rejects the whole request (ValidationException) for any other, although such a
 * literal is a well-formed query; no stored number can equal one, so `evaluate` decides instead.
 */
export function sendable(value: Value): boolean {
  if (typeof value !== "number") return true;
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= 1e-130 && magnitude < 1e126);
}

/** The DynamoDB type tags the filter needs, each under one fixed placeholder. */
export type TypeTag = "NULL" | "L" | "S";

/**
 * Hands out expression placeholders so no user-supplied name or value is ever spliced into
 * an expression string. A name used twice shares its placeholder; every value gets its own.
 */
export class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly nameIds = new Map<string, string>();
  private valueCount = 0;

  path(field: string): string {
    return fieldSegments(field)
      .map((segment) => this.name(segment))
      .join(".");
  }

  value(value: Value): string {
    const id = `:v${this.valueCount++}`;
    this.values[id] = value;
    return id;
  }

  typeTag(tag: TypeTag): string {
    const id = `:${tag}`;
    this.values[id] = tag;
    return id;
  }

  /** A copy to try an emission on; `adopt` keeps what it added, dropping it discards it. */
  fork(): Placeholders {
    const copy = new Placeholders();
    Object.assign(copy.names, this.names);
    Object.assign(copy.values, this.values);
    for (const [segment, id] of this.nameIds) copy.nameIds.set(segment, id);
    copy.valueCount = this.valueCount;
    return copy;
  }

  adopt(trial: Placeholders): void {
    Object.assign(this.names, trial.names);
    Object.assign(this.values, trial.values);
    for (const [segment, id] of trial.nameIds) this.nameIds.set(segment, id);
    this.valueCount = trial.valueCount;
  }

  /** About the size DynamoDB counts for the substitutions (names and values as sent). */
  valueBytes(): number {
    return Buffer.byteLength(JSON.stringify(this.names)) + Buffer.byteLength(JSON.stringify(this.values));
  }

  private name(segment: string): string {
    let id = this.nameIds.get(segment);
    if (id === undefined) {
      id = `#n${this.nameIds.size}`;
      this.nameIds.set(segment, id);
      this.names[id] = segment;
    }
    return id;
  }
}
