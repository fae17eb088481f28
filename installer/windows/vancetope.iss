; Inno Setup script of Vancetope Desktop for Windows (issue 16). Not built by this project's CI (Linux only):
; build it on Windows with Inno Setup 6 after the bundle, from the repository root:
;
;   py packaging\build_bundle.py --no-deb          (PyInstaller: dist\vancetope-desktop\, the same spec as Linux)
;   iscc /DAppVersion=0.1.0 installer\windows\vancetope.iss
;
; The same recipe as the Linux .deb: the whole onedir folder goes under one program folder, the window gets a
; Start-menu entry, the command line (vancetope.exe, a console program) can be put on the user's PATH.
; Per-user install by default (no administrator needed); the library and settings stay in the user's folders
; and are never removed by the uninstaller.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Vancetope Desktop"
#define Bundle "..\..\dist\vancetope-desktop"

[Setup]
AppId={{6D2C3E8B-4F1A-4B7E-9C35-2A8F0D51E7A4}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=Vancetope
DefaultDirName={autopf}\Vancetope Desktop
DefaultGroupName={#AppName}
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
LicenseFile=..\..\LICENSE
OutputDir=..\..\dist
OutputBaseFilename=vancetope-desktop-{#AppVersion}-setup
UninstallDisplayIcon={app}\vancetope-desktop.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Put the vancetope command on my PATH"; GroupDescription: "Command line:"

[Files]
Source: "{#Bundle}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\vancetope-desktop.exe"
Name: "{group}\Uninstall {#AppName}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\vancetope-desktop.exe"; Tasks: desktopicon

[Registry]
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; \
    Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\vancetope-desktop.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; \
    Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Folder: string): Boolean;
var
  Path: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path) then
    Path := '';
  Result := Pos(';' + Uppercase(Folder) + ';', ';' + Uppercase(Path) + ';') = 0;
end;
