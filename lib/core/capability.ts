/**
 * A capability an upper layer hands to the application it builds (the OpenID client, the mail
 * transport, a legacy password verifier...): declared where it is used, provided by the function's
 * composition (lib/core/compose.ts), held by the Application. Its name is what an error says when a
 * function lacks it.
 */
export class Capability<T> {
  /** `hint` says how a function provides it: it ends the error of a function that lacks it. */
  constructor(
    readonly name: string,
    readonly hint: string,
  ) {}

  of(value: T): Provided<T> {
    return { capability: this, value };
  }
}

/** A capability with its value, as ApplicationParts carries it. */
export interface Provided<T> {
  capability: Capability<T>;
  value: T;
}
