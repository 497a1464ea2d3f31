# Packer step (windows-kiln.pkr.hcl), over WinRM as the build administrator, after the file provisioners copied
# kiln-win-x64.exe and images/windows/Unattend.xml to C:\Windows\Temp. `kiln install` does what
# images/windows/install-kiln.cmd does: kiln.exe and its confs in cloudbase-init's folder ($env:KILN_DIR),
# SetupComplete.cmd, and the cloudbase-init service (demand start until SetupComplete.cmd hands over). The
# Unattend.xml goes where the template's sysprep line looks for it.
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

if (-not $env:KILN_DIR) { throw 'KILN_DIR is not set (the template passes cloudbase-init''s folder in environment_vars)' }

& 'C:\Windows\Temp\kiln-win-x64.exe' install
if ($LASTEXITCODE -ne 0) { throw "kiln install exited $LASTEXITCODE" }
Remove-Item 'C:\Windows\Temp\kiln-win-x64.exe'
Move-Item -Force 'C:\Windows\Temp\kiln-Unattend.xml' (Join-Path $env:KILN_DIR 'conf\Unattend.xml')
Get-Service cloudbase-init | Format-List Name, Status, StartType
Get-Item 'C:\Windows\Setup\Scripts\SetupComplete.cmd'
