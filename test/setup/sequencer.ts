import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The project whose files start an `npm start` of their own on the fixed ports (vitest.config.ts). */
export const SERVICE_PROJECT = "service";

/**
 * The files of a run in the order the workers take them. vitest's own order (groups, then projects
 * by name, then larger or longer files first) would hand the `service` files to every worker at
 * once, where all but one wait for the fixed ports (the offline lock) while the unit files queue
 * behind them. Here each service file is followed by an even share of the other files of its group:
 * one worker runs a service while the others work through unit files, and the next service comes up
 * about when the previous one ends. A wrong guess costs only a worker waiting for the lock. Under
 * `npm test` the service files are one chain file (test/e2e/own-service-chain.test.ts), which so
 * comes first.
 */
export default class ServiceSpreadingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const services = sorted.filter((spec) => spec.project.name === SERVICE_PROJECT);
    if (services.length === 0) return sorted;
    const group = services[0]?.project.config.sequence.groupOrder ?? 0;
    // vitest's own order for the rest: spreading the isolated files among the shared ones as well
    // was measured slower, in npm test and in test:fast alike.
    const partners = sorted.filter((spec) => spec.project.name !== SERVICE_PROJECT && spec.project.config.sequence.groupOrder === group);
    const spread = spreadAmong(services, partners);
    const others = sorted.filter((spec) => spec.project.config.sequence.groupOrder !== group);
    // Groups run one after another in ascending order: keep them so, with this group's files spread.
    return [
      ...others.filter((spec) => spec.project.config.sequence.groupOrder < group),
      ...spread,
      ...others.filter((spec) => spec.project.config.sequence.groupOrder > group),
    ];
  }
}

/** `services` one by one, each followed by an equal share of `partners` (in their order); the rest last. */
export function spreadAmong<T>(services: T[], partners: T[]): T[] {
  if (services.length === 0) return [...partners];
  const share = Math.floor(partners.length / services.length);
  const out: T[] = [];
  services.forEach((service, i) => out.push(service, ...partners.slice(i * share, (i + 1) * share)));
  out.push(...partners.slice(services.length * share));
  return out;
}
