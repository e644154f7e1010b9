// MetaData.cs in the shape of Unreal Engine's Engine/Source/Programs/DotNETCommon/MetaData.cs (4.x), written for
// buildver's tests; the comments are buildver's own.

using System.Reflection;
using System.Runtime.InteropServices;
using System.Resources;

// The assembly properties of every C# tool.
[assembly: AssemblyCompany( "Epic Games, Inc." )]
[assembly: AssemblyProduct( "UnrealEngine" )]
[assembly: AssemblyTrademark( "" )]
[assembly: AssemblyCulture( "" )]
[assembly: ComVisible( false )]
[assembly: NeutralResourcesLanguageAttribute( "" )]

#if !SPECIFIC_VERSION
// UpdateLocalVersion stamps the informational version below.
[assembly: AssemblyVersion( "4.0.0.0" )]
[assembly: AssemblyInformationalVersion("4.0.0")]
#endif
