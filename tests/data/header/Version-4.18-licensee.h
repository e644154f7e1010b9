// Version.h in the layout of Unreal Engine 4.18 (Engine/Source/Runtime/Launch/Resources/Version.h), written for
// buildver's tests from the line rules in the reference notes: the #define lines UpdateLocalVersion patches are
// spelled and placed as in 4.18, the comments are buildver's own.

#pragma once

// The banner version: the most significant numbers when two engine versions are ordered.
#define ENGINE_MAJOR_VERSION	4
#define ENGINE_MINOR_VERSION	18
#define ENGINE_PATCH_VERSION	3

// 1 for a licensee build: its changelists count as newer than Epic's for the same major.minor.patch.
#define ENGINE_IS_LICENSEE_VERSION 1

// The changelist being compiled; UpdateLocalVersion writes it, and leaves it empty when there is none.
#define BUILT_FROM_CHANGELIST 4012345

// Promoted: built by a build machine and shipped as binaries (no hot reload).
#define ENGINE_IS_PROMOTED_BUILD  1

// The changelist that goes into FEngineVersion::Current().
#define ENGINE_CURRENT_CL_VERSION  BUILT_FROM_CHANGELIST

// The changelist this build keeps binary compatibility with. The first definition is the licensee one, the
// second Epic's (UpdateLocalVersion picks one by position, so keep this order).
#if ENGINE_CURRENT_CL_VERSION > 0
	#if ENGINE_IS_LICENSEE_VERSION
		#define ENGINE_COMPATIBLE_CL_VERSION 4012345
	#else
		#define ENGINE_COMPATIBLE_CL_VERSION 3709383 /* Or hotfix compatibility changelist */
	#endif
#else
	#define ENGINE_COMPATIBLE_CL_VERSION 0
#endif
#if ENGINE_IS_LICENSEE_VERSION == 0 && ENGINE_PATCH_VERSION > 0 && ENGINE_CURRENT_CL_VERSION > 0 && ENGINE_COMPATIBLE_CL_VERSION == ENGINE_CURRENT_CL_VERSION
	#error ENGINE_COMPATIBLE_CL_VERSION must be manually defined for hotfix builds
#endif

// Network and replay compatibility follow the compatible changelist.
#define ENGINE_NET_VERSION  ENGINE_COMPATIBLE_CL_VERSION
#define ENGINE_REPLAY_VERSION  ENGINE_NET_VERSION

// The escaped depot path of the branch (//UE4/Main -> ++UE4+Main).
#define BRANCH_NAME "++Studio+Game-Main"

// Turning narrow literals and numbers into wide literals.
#define VERSION_TEXT_2(x) L ## x
#define VERSION_TEXT(x) VERSION_TEXT_2(x)
#define VERSION_STRINGIFY_2(x) VERSION_TEXT(#x)
#define VERSION_STRINGIFY(x) VERSION_STRINGIFY_2(x)

// An opaque string naming this build of the product; UpdateLocalVersion -Build=... replaces it.
#define BUILD_VERSION L"Game 1.2 \"beta\""

#define EPIC_PRODUCT_NAME "Unreal Engine"
#define EPIC_PRODUCT_IDENTIFIER "UnrealEngine"

#define ENGINE_VERSION_STRING \
	VERSION_STRINGIFY(ENGINE_MAJOR_VERSION) \
	VERSION_TEXT(".") \
	VERSION_STRINGIFY(ENGINE_MINOR_VERSION) \
	VERSION_TEXT(".") \
	VERSION_STRINGIFY(ENGINE_PATCH_VERSION) \
	VERSION_TEXT("-") \
	VERSION_STRINGIFY(BUILT_FROM_CHANGELIST) \
	VERSION_TEXT("+") \
	VERSION_TEXT(BRANCH_NAME)
