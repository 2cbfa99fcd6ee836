import { graphqlCache } from "./graphql-cache.ts";
import { restCache, type CacheRenderer } from "./cache.ts";
import { infrastructureCache } from "./infrastructure.ts";
import { validatorsCache } from "./validators.ts";
import { recordsCache } from "./records-cache.ts";

/** Every face that writes into schema-cache/ registers its renderer here. */
export const cacheRenderers: CacheRenderer[] = [restCache, graphqlCache, infrastructureCache, validatorsCache, recordsCache];
