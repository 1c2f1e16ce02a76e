// The throwaway databases live in their own package so that package unit tests (such as
// @nudge/http's) can use them too; every test helper here imports them from this module.
export * from '@nudge/test-databases';
