export const SINGLE = `{ Post(slug: "p7") { slug title status } }`;
export const LIST = `{ Posts(limit: 50) { results { slug title author { username } tags { name } } } }`;
export const MUTATION = `mutation { updatePost(uuid: "mutable", Post: { slug: "mutable", title: "Rewritten", content: "Some content", status: "published" }) { slug title } }`;
export const REST_QUERY = (writer: string) => ({ q: `author = '${writer}'`, limit: 20 });
export const LIST_WITH_COMMENTS = `{ Posts(limit: 50) { results { slug comments(limit: 20) { results { content } } } } }`;
