#define BRANCH_NAME "ÿ"
