/** Where the API is served: every route of an area is registered under it. */
export const BASE_PATH = '/api/2.0';
