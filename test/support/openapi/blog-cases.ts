import type { ServiceCase } from "./plan.ts";

/**
 * The sample application's service operations: what a successful call needs (model routes need
 * no case, they are exercised from the route table). A service operation added without a case
 * here fails the conformance test.
 */
export const BLOG_CASES: Record<string, ServiceCase> = {
  "version.version": async () => ({ success: { operationId: "version.version", expect: 200, path: "/version" } }),
  "testbean.testOperation": async () => ({
    success: { operationId: "testbean.testOperation", expect: 200, path: "/testbean/testoperation", body: { counter: 48879 } },
  }),
  "publisher.publish": async ({ owner }) => ({
    success: { operationId: "publisher.publish", expect: 200, path: "/publisher/publish", user: owner, body: { message: "hello" } },
  }),
  "publisher.publishPost": async ({ run, owner, unique }) => {
    // A post the other caller may read but not change: their attempt is a 403, not a 404.
    const slug = `publish-${unique()}`;
    await run.call({ operationId: "Post.create", expect: 200, path: "/posts", user: owner, body: { slug, title: "T", content: "C", status: "published" } });
    const success = { operationId: "publisher.publishPost", expect: 200, path: "/publisher/publishpost", user: owner, body: { postId: slug } };
    return { success, extra: [{ ...success, expect: 404, body: { postId: `missing-${unique()}` } }] };
  },
};
